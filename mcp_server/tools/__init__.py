"""The MCP tools, by topic; each module lists its tools in TOOLS."""
