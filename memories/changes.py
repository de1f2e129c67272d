"""Words that say a value changed ("now", "moved", "no longer", "现在", "改为"), in English and
Chinese, and the patterns built from them: PostgreSQL's for the stored `states_change` of a
memory (recall's `overtaken`), Python's for the supersession detector (`quality.facts`). And the
"Speaker: " that begins a conversation turn, what someone said in passing rather than a fact
that holds until replaced: neither recall's `overtaken` nor an automatic supersession replaces one.
"""

import re

ENGLISH = (
    "now|nowadays|these days|currently|anymore|any more|no longer|moved|moving|switched|"
    "switching|changed|changing|replaced|replacing|instead|since|as of|starting|from now on|"
    "from this|effective|upgraded|downgraded|updated|rescheduled|postponed|pushed|brought forward|"
    "new|left|quit|resigned|stepped down|took over|taken over|takes over|became|become|turned|"
    "promoted|relocated|went up|gone up|put up|raised|increased|decreased|dropped|cut|reduced|"
    "down to|up to|back to|finally|got|signed|approved|resolved|settled|sold"
)
CHINESE = (
    "现在|如今|目前|已经|已|改为|改成|改到|换成|换了|换到|搬到|搬去|搬家|不再|调整|升级|更新|变成|变为|变了|"
    "新的|新|以后|今后|起|推迟|提前|涨|降|离职|辞职|跳槽|接任|接手|接管|升任|上线|批下来|结婚|离婚|分手"
)
STATES_CHANGE_EN = re.compile(rf"(?i)\b({ENGLISH})\b")
STATES_CHANGE_ZH = re.compile(f"({CHINESE})")
# PostgreSQL's regular expressions: \m and \M are the word boundaries; (?i) applies to the whole.
STATES_CHANGE_SQL = rf"(?i)\m({ENGLISH})\M|({CHINESE})"
# "Caroline: …", "Mary Ann O'Neil: …": up to four capitalised words and a colon.
SPEAKER = re.compile(r"^\s*([A-Z][\w'’.-]*(?:\s[A-Z][\w'’.-]*){0,3}):\s+(?=\S)")
TURN_SQL = r"^\s*[A-Z][[:alnum:]_'’.-]*(\s[A-Z][[:alnum:]_'’.-]*){0,3}:\s+\S"
