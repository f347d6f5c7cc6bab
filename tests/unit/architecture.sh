#!/bin/sh
# architecture.sh: doc/architecture.md is checked against the tree: every src/ file is named,
# every file and C name it writes exists, and every includer of a private header is listed;
# and every source file opens with a comment that names it.
# Text only (grep, sed, awk); runs in the unit tier.
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
doc=$top_srcdir/doc/architecture.md
src=$top_srcdir/src
n=0
fails=0
tap() { # tap STATUS DESCRIPTION [MISSING...]
	n=$((n + 1))
	st=$1; d=$2; shift 2
	if [ "$st" -eq 0 ]; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		for m in "$@"; do echo "#   $m"; done
		fails=$((fails + 1))
	fi
}
if [ ! -r "$doc" ] || [ ! -d "$src" ]; then
	echo "1..0 # SKIP no doc/architecture.md or src/ under $top_srcdir"
	exit 0
fi

# Words as the doc writes them: names joined by word boundaries.
# System headers (<x.h>) are not ours and are left out.
words=$(sed 's/<[A-Za-z0-9_./]*\.h>//g' "$doc" | tr -c 'A-Za-z0-9_./-' '\n' | sed 's/^[./-]*//; s/[.-]*$//' | sort -u)

# (1) every src/*.c and src/*.h is named (as src/x.c or x.c); a header that is just its .c's
# interface (x.h beside x.c) is named with it.
missing=""
for f in "$src"/*.c "$src"/*.h; do
	b=${f##*/}
	c=${b%.h}.c
	case $b in *.h) [ -e "$src/$c" ] || c=$b ;; esac
	printf '%s\n' "$words" | grep -qx -e "$b" -e "src/$b" -e "$c" -e "src/$c" ||
		missing="$missing $b"
done
# shellcheck disable=SC2086
tap "$([ -z "$missing" ]; echo $?)" "every source file is named in doc/architecture.md" $missing

# (2) every file the doc names exists: src/, tests/, bench/, doc/ paths and bare *.c/*.h/*.sh
# (a bare name is looked for in src/, tests/ and bench/); braces and globs are left out.
missing=""
for w in $(printf '%s\n' "$words" | grep -E '\.(c|h|sh|js|md)$|^(src|tests|bench|doc|mk|fuzz)/' |
	grep -v -e '[*{}]' -e NAME -e '^_' -e '_$' -e '^src/libntop\.a$'); do
	case $w in
	*/*) [ -e "$top_srcdir/$w" ] || missing="$missing $w" ;;
	*.md|*.js) ;;
	*)
		[ -e "$src/$w" ] || [ -e "$top_srcdir/$w" ] || [ -n "$(find -H "$top_srcdir/tests" "$top_srcdir/bench" \
			"$top_srcdir/fuzz" -name "$w" 2>/dev/null | head -1)" ] || missing="$missing $w"
		;;
	esac
done
# shellcheck disable=SC2086
tap "$([ -z "$missing" ]; echo $?)" "every file doc/architecture.md names exists" $missing

# (3) every C name in backticks exists in src/: `f()`, `struct x`, `enum x`, `name_with_under`.
# Skipped by rule: options (`--x`), protocol methods (`Domain.method`), paths, and text with
# spaces other than struct/enum. EXCEPTIONS are names that are not C on purpose.
EXCEPTIONS="max_message_bytes no_signal"
cnames=$(grep -o '`[^`]*`' "$doc" | tr -d '`' | while IFS= read -r t; do
	case $t in
	--*|*/*|*.*) continue ;;
	"struct "*|"enum "*) set -- $t; [ $# -eq 2 ] && echo "$2" ;;
	*" "*) continue ;;
	*"()") echo "${t%"()"}" ;;
	*_*) echo "$t" ;;
	esac
done | sed 's/(.*//' | grep -E '^[A-Za-z_][A-Za-z0-9_]*$' | sort -u)
# Names are looked for in src/, the tests' helpers and programs, and the build files (tiers,
# EXTRA_DIST); a name written as a suffix (`_free`) is skipped.
known=$( (cat "$src"/*.c "$src"/*.h "$top_srcdir"/tests/lib.sh "$top_srcdir"/tests/unit/*.h \
	"$top_srcdir"/Makefile.am "$top_srcdir"/mk/*.am; ls "$top_srcdir"/tests/unit) |
	tr -c 'A-Za-z0-9_' '\n' | sort -u)
missing=$(printf '%s\n' $cnames $EXCEPTIONS $EXCEPTIONS | grep -v '^_' | sort | uniq -u |
	grep -vxF -e "$known" | tr '\n' ' ')
# shellcheck disable=SC2086
tap "$([ -z "$missing" ]; echo $?)" "every C name doc/architecture.md writes occurs in src/" $missing

# (4) each private header's includers are all named on the doc's line that lists them:
# "`x_priv.h` is included by ..." (one line, files by their names).
for h in "$src"/*_priv.h; do
	hb=${h##*/}
	line=$(grep -F "\`$hb\` is included by" "$doc" | head -1)
	missing=""
	for f in $(grep -l "#include \"$hb\"" "$src"/*.c "$src"/*.h "$top_srcdir"/tests/unit/*.c 2>/dev/null); do
		rel=${f#"$top_srcdir"/}
		b=${f##*/}
		printf '%s\n' "$line" | grep -qF -e "$rel" -e "\`$b\`" || missing="$missing $rel"
	done
	# shellcheck disable=SC2086
	tap "$([ -n "$line" ] && [ -z "$missing" ]; echo $?)" "every includer of $hb is listed" $missing
done

# (5) every source file opens with a comment that names it ("/* x.c: ..."), so that a reader
# tells from it what the file owns (a .c may say no more than "see x.h", its interface's).
missing=""
for f in "$src"/*.c "$src"/*.h; do
	b=${f##*/}
	head -n 1 "$f" | grep -qF "/* $b: " || missing="$missing $b"
done
# shellcheck disable=SC2086
tap "$([ -z "$missing" ]; echo $?)" "every source file opens with a comment that names it" $missing

echo "1..$n"
