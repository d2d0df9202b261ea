#!/bin/bash
# capture.sh records the transcripts of the tmux oracle: each program runs in
# a tmux pane of 120x40 (TERM=xterm-256color) and the bytes it writes are
# saved as NAME.raw (tmux pipe-pane). Synthetic cases are written directly.
# Then `go test ./screen -run TestOracle -update` replays each .raw into tmux
# and records NAME.tmux.log (capture-pane -p -J -S - -E -) and
# NAME.tmux.screen (capture-pane -p). Run from this directory.
set -u
here=$(pwd)
S=(tmux -L yieldshell-capture -f "$here/tmux.conf")
export LANG=C.UTF-8
work=$(mktemp -d)
trap 'rm -rf "$work"; "${S[@]}" kill-server 2>/dev/null' EXIT

# capture NAME COMMAND [KEYS...]: KEYS are sent a second apart. With
# ONLY="name ..." in the environment, only those transcripts are made.
wanted() { [[ -z ${ONLY:-} || " $ONLY " == *" $1 "* ]]; }
capture() {
	wanted "$1" || return 0
	local name=$1 cmd=$2
	shift 2
	"${S[@]}" new-session -d -s cap -x 120 -y 40 -c "$work" \
		"sleep 0.5; $cmd; sleep 0.5; ${S[*]} wait-for -S cap-done"
	"${S[@]}" pipe-pane -t cap -o "cat > '$here/$name.raw'"
	for k in "$@"; do
		sleep 1
		"${S[@]}" send-keys -t cap "$k"
	done
	"${S[@]}" wait-for cap-done
	"${S[@]}" kill-session -t cap
	echo "$name: $(wc -c < "$name.raw") bytes"
}

# A repository to log and clone, with colours.
(cd "$work" && git init -q repo && cd repo &&
	for i in $(seq 1 30); do echo "line $i" >> f.txt; git add f.txt;
		GIT_AUTHOR_DATE="2026-01-0${i:0:1}T10:00:00" GIT_COMMITTER_DATE="2026-01-0${i:0:1}T10:00:00" \
		git -c user.name=dev -c user.email=dev@example.com commit -qm "change number $i"; done)
printf 'Hello 世界, こんにちは, 안녕하세요\n中文字符测试 with ASCII mixed in 中間\nemoji: 😀 🎉 🚀 done\ncombining: e\xcc\x81 a\xcc\x88 n\xcc\x83\nwide at margin: %s中文\n' \
	"$(printf 'x%.0s' $(seq 1 119))" > "$work/cjk.txt"
cp "$here"/*.py "$here"/*.js "$work"/ 2>/dev/null

capture git_log "git -C repo log --color=always --graph --decorate -n 25 | cat"
capture git_clone "git clone --progress --no-local \"file://\$PWD/repo\" clone2 && ls --color=always clone2"
capture python_traceback "python3 -c 'def f(n):
    return 1/n
[f(i) for i in range(3, -1, -1)]'"
capture bash_colors "ls --color=always -la /usr/share | head -50; grep --color=always -n 'root' /etc/passwd"
capture cjk_emoji "cat cjk.txt"
capture tqdm_bars "python3 multibar.py"
capture rich_progress "python3 richbar.py"
capture npm_spinner "node spinner.js"
capture cargo_bar "python3 cargobar.py"
capture docker_layers "python3 layers.py"
capture apt_region "python3 aptregion.py"
capture tqdm_real "/usr/bin/python3 tqdmreal.py"
capture rich_real "/usr/bin/python3 richreal.py"
capture npm_install "mkdir -p npmproj && cd npmproj && npm init -y >/dev/null && npm install --no-audit --no-fund is-number@7"
capture cargo_build "cargo new -q hello && cd hello && cargo build"
capture long_output "seq 1 300"
capture vim_edit "vim -u NONE -N cjk.txt" "j" "d" "d" "i" "new text" Escape ":wq" Enter
capture less_file "seq 1 200 | less" " " " " "q"
capture man_page "man ls" " " "q"
capture top_batch "top -b -n 1 | head -30"
capture top_interactive "top -d 1" "" "q"
capture htop_utf8 "htop -d 5" "" "q"
capture htop_c_locale "LANG=C LC_ALL=C htop -d 5" "" "q"
capture bash_prompt "bash --norc -i" "PS1='\\[\\e[1;32m\\]user@host\\[\\e[0m\\]:\\w\\$ '" Enter "echo hello" Enter "printf '\\e[31mred\\e[0m\\n'" Enter "exit" Enter

# Synthetic cases, one per sequence class: written as a program would, with
# the terminal driver's CR before each LF.
onlcr() { python3 -c 'import sys; sys.stdout.buffer.write(sys.stdin.buffer.read().replace(b"\n", b"\r\n"))'; }
synth() {
	wanted "$1" || return 0
	local name=$1 format=$2
	shift 2
	printf "$format" "$@" | onlcr > "$here/$name.raw"
	echo "$name: synthetic"
}
synth syn_rep 'a\033[3b|\n\033[1;31mx\033[0m\033[5b\n=\033[118b\n'
synth syn_multiline_progress 'line1\nA: 0%%\nB: 0%%\n\033[2A\rA: 10%%\033[K\nB: 15%%\033[K\n\033[2A\rA: 20%%\033[K\nB: 25%%\033[K\n\033[2A\rA: 30%%\033[K\nB: 35%%\033[K\ndone\n'
synth syn_insert_delete_line 'one\ntwo\nthree\nfour\n\033[3A\033[2L\rins1\nins2\n\033[1M\033[5;1H'
synth syn_insert_delete_char 'abcdefghij\r\033[3C\033[2@XY\033[4C\033[2P\n0123456789\r\033[4h--\033[4l\033[3X\n'
synth syn_erase 'keep this line\nerase the end of this\nand all of this\n\033[2A\033[6G\033[K\033[1B\r\033[2K\033[1A\033[1;5H\033[1K\033[4;1H'
synth syn_erase_display 'a1\na2\na3\na4\n\033[2;2H\033[J\033[4;1Hb\n\033[1;1H\033[1J\033[6;1H'
synth syn_clear_screen 'before clear\nline 2\n\033[H\033[2Jafter clear\nsecond screen\n'
synth syn_scroll_region 'head\n\033[2;6r\033[2;1H1\n2\n3\n4\n5\n6\n7\n8\n\033[r\033[8;1Htail\n'
synth syn_scroll_up_down 'r1\nr2\nr3\nr4\n\033[2S\033[1T\033[6;1H'
synth syn_reverse_index 'first\nsecond\n\033[H\033MTOP\n\033[5;1H'
synth syn_tabs 'a\tb\tc\n\033[3g\033[5G\033H\033[15G\033H\rx\ty\tz\n\033[0g\033[30G\033[2Zq\033[Ie\n'
synth syn_dec_graphics '\033(0lqqqqk\nx ab x\nmqqqqj\033(B\n'
synth syn_wrap 'AAAAAAAAAABBBBBBBBBBCCCCCCCCCCDDDDDDDDDDEEEEEEEEEEFFFFFFFFFFGGGGGGGGGGHHHHHHHHHHIIIIIIIIIIJJJJJJJJJJKKKKKKKKKKLLLLLLLLLLMMMMMMMMMMNNNNNNNNNN\nexactly 120: %0120d\nnext\n' 0
synth syn_wide_margin 'wide at the margin: %0101d中文\n中文字符 overwrite\r\033[1C|\033[3C|\n😀😀\b\bX\n' 0
synth syn_combining 'cafe\314\201 nai\314\210ve\ne\314\201\314\202 stacked\r\033[1CX\n'
synth syn_save_restore 'abc\0337\033[5;10Hstatus\0338def\n\033[s\033[3;1Hmid\033[ughi\n'
synth syn_origin_mode '\033[3;6r\033[?6h\033[1;1Hin region\033[10;1Hbottom of region\033[?6l\033[r\033[8;1H'
synth syn_cursor_moves 'grid\n\033[3;5Hx\033[2Ay\033[3Bz\033[10Dw\033[5Cv\033[1;1H\033[4E+\033[2F-\033[9Gg\033[6d@\033[12;1H'
synth syn_no_autowrap '\033[?7l%0130d\n\033[?7h' 0
synth syn_alt_screen 'before\n\033[?1049h\033[Hfull screen app\033[5;5Hdrawing\033[?1049lafter\n'
synth syn_backspace_cr 'abc\b\bX\ndownload 10%%\rdownload 20%%\rdownload 100%%\n  0%%|   |\r100%%|###|\n'
