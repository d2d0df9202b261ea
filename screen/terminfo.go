package screen

// capUse says what the screen package does with one string capability of the
// xterm-256color terminfo entry (TERM inside our terminals). The Cleaner and
// the Screen (vt10x behind its sanitiser) interpret the same set unless the
// note says otherwise; TestTerminfoCoverage walks the installed entry (and a
// copy in testdata) so that a capability cannot be missing from this table.
type capUse struct {
	interpreted bool
	note        string
}

// keyCapPrefix: capabilities named k... are the strings keys send (kcuu1,
// kf1..kf63, kmous, ...). They are input to the program, never output to the
// terminal, so the screen has nothing to do with them; session/keys.go
// encodes keys.
const keyCapPrefix = "k"

// terminfoCaps is read-only.
var terminfoCaps = map[string]capUse{
	// Text and cursor movement.
	"bel":   {false, "BEL: nothing to show"},
	"cr":    {true, "CR"},
	"ht":    {true, "TAB to the next tab stop"},
	"hts":   {true, "HTS sets a tab stop"},
	"tbc":   {true, "TBC clears tab stops"},
	"cbt":   {true, "CBT back to the previous tab stop"},
	"cub":   {true, "CUB"},
	"cub1":  {true, "BS"},
	"cud":   {true, "CUD"},
	"cud1":  {true, "LF"},
	"cuf":   {true, "CUF"},
	"cuf1":  {true, "CUF 1"},
	"cuu":   {true, "CUU"},
	"cuu1":  {true, "CUU 1"},
	"cup":   {true, "CUP"},
	"home":  {true, "CUP home"},
	"hpa":   {true, "CHA"},
	"vpa":   {true, "VPA"},
	"ind":   {true, "LF, scrolling at the bottom of the region"},
	"indn":  {true, "SU scrolls the region up"},
	"ri":    {true, "RI, scrolling down at the top of the region"},
	"rin":   {true, "SD scrolls the region down"},
	"nel":   {true, "NEL"},
	"csr":   {true, "DECSTBM sets the scroll region"},
	"sc":    {true, "DECSC"},
	"rc":    {true, "DECRC"},
	"rep":   {true, "REP repeats the last character"},
	"clear": {true, "CUP home + ED 2: the rows with text go to the log first (tmux's scroll-on-clear)"},

	// Editing.
	"dch":  {true, "DCH"},
	"dch1": {true, "DCH 1"},
	"ech":  {true, "ECH"},
	"ich":  {true, "ICH"},
	"il":   {true, "IL"},
	"il1":  {true, "IL 1"},
	"dl":   {true, "DL"},
	"dl1":  {true, "DL 1"},
	"ed":   {true, "ED 0"},
	"el":   {true, "EL 0"},
	"el1":  {true, "EL 1"},
	"smir": {true, "IRM on: printing inserts"},
	"rmir": {true, "IRM off"},

	// Modes.
	"smam":  {true, "DECAWM on: wrap at the right margin"},
	"rmam":  {true, "DECAWM off: the last column is overwritten"},
	"smcup": {true, "alternate screen (1049); the window-title stack part (CSI 22 t) is ignored"},
	"rmcup": {true, "normal screen back (1049); CSI 23 t ignored"},
	"smkx":  {true, "DECCKM on (arrow keys as ESC O A, see AppCursor); DECKPAM ignored"},
	"rmkx":  {true, "DECCKM off; DECKPNM ignored"},
	"civis": {true, "DECTCEM off: cursor hidden (Snapshot, DECRQM)"},
	"cnorm": {true, "DECTCEM on; blinking (?12) ignored"},
	"cvvis": {true, "DECTCEM on; blinking (?12) ignored"},
	"is2":   {true, "DECSTR soft reset, IRM off; DECCOLM (?3) is ignored as in xterm by default; keypad ignored"},
	"rs2":   {true, "same as is2"},
	"rs1":   {true, "RIS full reset (rows with text go to the log first); OSC 104 ignored"},

	// Character sets.
	"smacs": {true, "G0 = DEC line drawing, shown as Unicode box characters"},
	"rmacs": {true, "G0 = ASCII"},
	"acsc":  {false, "a mapping table, not a sequence: the line-drawing set is mapped in full (decGraphics)"},

	// Replies the terminal sends and the queries that ask for them.
	"u6": {false, "format of the CPR reply (a reply, not output); see appendReply"},
	"u7": {true, "CPR query: answered with the cursor position"},
	"u8": {false, "format of the DA reply (a reply, not output); see appendReply"},
	"u9": {true, "DA1 query: answered"},

	// Attributes and colours: the log is text, and the rendered screen has
	// text only, so they change nothing anyone reads.
	"blink": {false, "SGR: attributes are not kept"},
	"bold":  {false, "SGR: attributes are not kept"},
	"dim":   {false, "SGR: attributes are not kept"},
	"invis": {false, "SGR: attributes are not kept (invisible text is still text)"},
	"rev":   {false, "SGR: attributes are not kept"},
	"sitm":  {false, "SGR: attributes are not kept"},
	"ritm":  {false, "SGR: attributes are not kept"},
	"smso":  {false, "SGR: attributes are not kept"},
	"rmso":  {false, "SGR: attributes are not kept"},
	"smul":  {false, "SGR: attributes are not kept"},
	"rmul":  {false, "SGR: attributes are not kept"},
	"sgr":   {true, "SGR ignored; its charset part (ESC ( 0 / B) is interpreted"},
	"sgr0":  {true, "SGR ignored; ESC ( B interpreted"},
	"op":    {false, "SGR colours: not kept"},
	"setaf": {false, "SGR colours: not kept"},
	"setab": {false, "SGR colours: not kept"},
	"initc": {false, "OSC 4 palette change: colours are not kept"},
	"oc":    {false, "OSC 104 palette reset: colours are not kept"},

	// Rest.
	"flash": {false, "DECSCNM reverse video flash: nothing to read"},
	"mc0":   {false, "media copy (print screen): no printer"},
	"mc4":   {false, "media copy off: no printer"},
	"mc5":   {false, "media copy on: no printer"},
	"meml":  {false, "HP memory lock (ESC l): xterm's own extension, nothing to show"},
	"memu":  {false, "HP memory unlock (ESC m)"},
	"smm":   {false, "meta key mode (?1034): input, not output"},
	"rmm":   {false, "meta key mode off"},
	"smglp": {false, "DECLRMM + DECSLRM left/right margins: rare; ignored (CSI s with parameters is not a cursor save)"},
	"smglr": {false, "DECLRMM + DECSLRM: ignored, see smglp"},
	"smgrp": {false, "DECLRMM + DECSLRM: ignored, see smglp"},
	"mgc":   {false, "DECLRMM off: margins are not kept"},
}
