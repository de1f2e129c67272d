"""The words the fact reader knows, in English and Chinese: one home for each list.

General vocabulary only — how people say that a value changed or was added, that something no
longer holds, which words set two similar things apart ("staging" / "production") — never the
names of things.
"""

import re

from memories import changes


def words(text):
    return frozenset(text.split())


# Words that say nothing about what a memory is about (left out of its content words).
FILLER = words(
    """a an the this that these those our my your his her their its we us i me you he she they it
    him them mine ours yours theirs also too still just now currently nowadays today recently finally
    already officially actually really basically then so well new old current latest all both every
    each only another other some any at in on of for to from by with as is are was were be been
    being has have had do does did will would shall should can could may might must and or but not
    no never there here since until after before last next month week year day days ago again
    about around roughly approximately almost nearly over under than per via into onto out up down
    off away back later soon yet once twice right exactly"""
)
# Nouns that name the kind of thing rather than which one: "the production cluster" and "the
# prod database" may be one thing; "the gold tier" and "the silver tier" are not.
GENERIC = words(
    """service services server servers cluster clusters database databases db system systems app
    apps application applications team teams squad squads group groups department project projects
    plan plans tier tiers account accounts company business shop store office offices site website
    page product products tool tools environment env instance instances machine machines box build
    builds branch branches channel repo repository version release edition line number price cost
    fee bill subscription package option setting settings feature flag thing stuff one place home
    house flat apartment room time schedule meeting meetings call calls session sessions person
    people user users customer customers client clients member members staff employee employees
    side part unit units level default"""
)
# Verbs that end a subject ("The mobile team | has six engineers").
VERBS = words(
    """is are was were be been being am 's ’s has have had get gets got getting will would shall can
    could may might must costs cost runs run running listens uses using takes took pays charges keeps
    holds offers includes needs requires goes went opens closes closed starts begins ends meets
    happens lives living lived works working worked moves moved moving leads led manages owns owned
    heads sits stays stayed covers sells sold buys bought drives drove speaks plays teaches makes made
    earns rents renting hosts serves puts raised left leaves quit joined joins became become becomes
    turned turns switched switches changed changes dropped drops cut cuts sets expires expired
    accepts allows defaults reports reached reaches signed asked says told gave gives"""
)
ZH_VERB = re.compile(
    r"(住|搬|在|是|有|用|负责|做|当|开|去|换|升|改|推迟|提前|定|卖|涨|降|要|会|已|现在|目前|还|也|由|归|从|把|被|不|没|喜欢|最爱)"
)

# Words for people close to someone: "Ines's son" is somebody else than Ines.
RELATIVES = words(
    """son sons daughter daughters child children kid kids baby wife husband partner spouse
    boyfriend girlfriend fiance fiancee brother brothers sister sisters sibling siblings mother mom
    mum mommy mummy father dad daddy parent parents grandmother grandma granny grandfather grandpa
    grandparents aunt uncle cousin cousins niece nephew stepson stepdaughter stepmother stepfather
    roommate flatmate neighbour neighbor boss manager colleague coworker co-worker assistant
    deputy friend friends mentor"""
)
ZH_RELATIVES = (
    "儿子", "女儿", "孩子", "妻子", "老婆", "丈夫", "老公", "爱人", "男朋友", "女朋友", "哥哥", "姐姐",
    "弟弟", "妹妹", "兄弟", "姐妹", "妈妈", "母亲", "爸爸", "父亲", "父母", "爷爷", "奶奶", "外公", "外婆",
    "叔叔", "阿姨", "舅舅", "表哥", "表姐", "表妹", "表弟", "堂哥", "同事", "朋友", "室友", "邻居", "老板",
    "领导", "上司", "助理",
)  # fmt: skip
# Words that set two things of one kind apart: "the staging database" and "the production
# database" are two databases.
CONTRAST = words(
    """staging stage production prod dev development test testing qa sandbox live demo free pro
    premium basic business enterprise team starter standard plus gold silver bronze platinum
    personal work home office mobile web desktop ios android windows mac macos linux small medium
    large regular big little junior senior internal external public private primary secondary main
    backup frontend backend front back first second third morning afternoon evening night weekday
    weekdays weekend weekends summer winter spring autumn domestic international local remote
    inbound outbound monthly yearly annual weekly daily monday mondays tuesday tuesdays wednesday
    wednesdays thursday thursdays friday fridays saturday saturdays sunday sundays"""
)
ZH_CONTRAST = (
    "生产", "测试", "开发", "预发", "线上", "线下", "基础", "高级", "专业", "企业", "免费", "付费", "大杯",
    "中杯", "小杯", "个人", "工作", "安卓", "苹果", "网页", "移动", "周末", "工作日", "早上", "晚上",
)  # fmt: skip
# "Year 9" and "Year 11", "v3.2" and "v3.3": two numbered things of one kind.
NUMBERED = re.compile(
    r"\b(?:year|grade|v|version|q|room|level|tier|plan|class|team|building|floor|gate|platform|line)\s*"
    r"\d[\d.]*",
    re.I,
)

# Words of the newer memory that say a value changed.
CHANGE_EN = changes.STATES_CHANGE_EN
CHANGE_ZH = changes.STATES_CHANGE_ZH
# Words of the older memory that say its state is passing: pending, on hold, still so for now.
TRANSIENT_EN = re.compile(
    r"(?i)\b(still|yet|pending|on hold|in progress|being processed|under review|awaiting|waiting|"
    r"for now|for the moment|at the moment|temporarily|so far|until further notice|not yet)\b"
)
TRANSIENT_ZH = re.compile(
    r"(还在|还是|仍然|仍|暂时|暂定|目前还|正在|尚未|还没|还未|待定|审批中|处理中|进行中)"
)
# Words that say the newer memory adds to the older one instead of replacing it.
ADDITION_EN = re.compile(
    r"(?i)\b(also|too|as well|in addition|additionally|another|a second|second|both|besides|"
    r"on top of|plus|alongside|added|adding|more)\b"
)
ADDITION_ZH = re.compile(r"(也|又|另外|另一|同时|此外|还有|还开|还新|增加了?|新增|第二)")

# Negation cues (inconsistency detection has its own, SQL, list).
NEGATION_EN = re.compile(
    r"(?i)\b(not|no|never|cannot|can't|can’t|isn't|isn’t|aren't|aren’t|wasn't|wasn’t|doesn't|"
    r"doesn’t|don't|don’t|didn't|didn’t|won't|won’t|hasn't|hasn’t|haven't|haven’t|no longer|"
    r"without|nobody|none|nothing)\b"
)
NEGATION_ZH = re.compile(r"(没有|不是|不会|不能|不再|从不|从来不|从来没|并非|未|不|没|无)")
# Saying that an older value no longer holds: "no longer X", "X anymore", "instead of X", "from X
# to", "left X", "used to X", "stopped X", "X was archived".
REPLACED_EN = re.compile(
    r"(?i)(?:n['’]t|\b(?:no longer|not|never|nobody|no one|stopped|stop|quit|left|leaving|dropped|"
    r"dropping|retired|retiring|sold|ditched|abandoned|replaced|from|instead of|rather than|used to|"
    r"formerly|previously|stepped down as|gave up|moved away from|moved off|moved out of|"
    r"switched from|switched off|turned off|disconnected|archived|deprecated|old))\s+(.{2,60}?)"
    r"(?=[,.;:!?()—–]|\s+(?:and|but|so|anymore|any more|now|to|for|since|because|instead|any)\b|$)"
)
REPLACED_PASSIVE_EN = re.compile(
    r"(?i)(?:^|[,;]\s*|\s)([#@]?[\w.@-]+(?:\s[\w.@-]+){0,3}?)\s+(?:was|were|has been|have been|got|is|are)\s+"
    r"(?:now\s+)?(?:archived|deprecated|dropped|cancell?ed|removed|disconnected|replaced|retired|shut down|"
    r"discontinued|closed|decommissioned|sold)\b"
)
REPLACED_ZH = re.compile(
    r"(?:不再|离开了?|辞去了?|卖掉了?|放弃了?|停用了?|原来的|旧的|以前的?|从)(.{1,12}?)(?=[，。；,.;!！]|了|离职|$)"
)

# "Only X", "exclusively X and Y", "nobody except X": the values a memory says are the only ones.
EXCLUSIVE_EN = re.compile(
    r"\b(?i:only|exclusively|solely|nobody (?:except|but)|no one (?:except|but)|none but)\s+"
    r"(?:(?:in|on|with|for|by|to|from|the|a|an|issued|issue|accepts?|accepted|supports?|supported|uses?|used|"
    r"takes?|ships?|available|works?|runs?|gets?)\s+){0,3}"
    r"((?:[A-Z][\w.+-]*|\d[\w.]*)(?:\s*(?:,|and|or|&|/)\s*(?:[A-Z][\w.+-]*|\d[\w.]*))*)"
)

# Verbs and nouns of attributes that hold several values at once (languages, hobbies, pets, trips,
# payment methods), and of attributes that hold one at a time (where one lives or works, a price).
MULTI_VALUED = re.compile(
    r"(?i)\b(speaks?|speaking|learning|learns?|plays?|playing|hobby|hobbies|pets?|adopted|visited|"
    r"visiting|trips?|travel\w*|went|offsite|supports?|accepts?|takes (?:card|cash)|certified|passed|"
    r"loves?|fan of|enjoys?|likes?|also|another|second|too|as well|each|both|includes?|added)\b|"
    r"也|还|又|另外|新增|第二|喜欢|爱好|学|去了|旅行|团建|领养|养了"
)
SINGLE_VALUED = re.compile(
    r"(?i)\b(lives?|living|lived|moved|relocated|based|works? (?:at|for)|joined|left|quit|costs?|priced|"
    r"price|version|upgraded|leads?|owns?|owned|manages?|managed|reports? to|married|single|engaged|"
    r"divorced|phone|number|e-?mail|address|deadline|due|opens?|closes?|scheduled|rescheduled|default|"
    r"favou?rite|prefers?|switched|replaced|changed|is now|are now|now (?:at|on|in)|retention|limit|"
    r"quota|status|blocked|signed|approved)\b|住|搬|工作|上班|入职|离职|跳槽|价格|元|版本|升级|负责|管|结婚|"
    r"单身|电话|邮箱|地址|截止|上线|营业|开门|改为|改成|换成|最爱|最喜欢"
)
