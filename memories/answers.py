"""The kind of answer a recall query asks for, the memories that hold one (recall's `answer`),
and the memories that only ask (recall's `statement`).

A query that asks when ("When did we move the servers?", "What year did she start?") is
answered by a memory that says when: it names a month or a weekday, says yesterday, today,
tomorrow or tonight, "… ago", "last week" (or next, this, past with week, weekend, month, year,
a time of day or a season), or a year. A query that asks how many, how much, how long, how often,
how old or how far is answered by a memory with a number, in digits or words. Questions are
recognised by their first words, in English; any other query asks for neither.

A memory whose content ends with a question mark (?, ？ or ؟) only asks: it is evidence for the
turns around it more than an answer itself.
"""

import re

ASKS = {
    "time": re.compile(
        r"\W*(when|since when|how long ago|(in )?(what|which) (year|month|date|day|time))\b", re.I
    ),
    "number": re.compile(r"\W*how (many|much|long|often|old|far)\b", re.I),
}
# PostgreSQL regular expressions over a memory's content. In HOLDS, month and weekday names are
# capitalised ("May" the month, not "may" the verb); other words may also start a sentence.
QUESTION = "[?？؟][[:space:]]*$"
HOLDS = {
    "time": (
        r"\m(January|February|March|April|May|June|July|August|September|October|November|December"
        r"|Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday"
        r"|[Yy]esterday|[Tt]oday|[Tt]omorrow|[Tt]onight|ago"
        r"|([Ll]ast|[Nn]ext|[Tt]his|[Pp]ast) (week|weekend|month|year|night|morning|afternoon|evening"
        r"|spring|summer|fall|autumn|winter)"
        r"|(19|20)[0-9]{2})\M"
    ),
    "number": (
        r"(?i)[0-9]|\m(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty"
        r"|forty|fifty|hundred|thousand|million|dozen|couple|few|several|once|twice)\M"
    ),
}


def asked_for(query):
    """The kind of answer `query` asks for ("time" or "number"), or None."""
    return next((kind for kind, question in ASKS.items() if question.match(query)), None)
