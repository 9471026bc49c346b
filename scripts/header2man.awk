# header2man.awk - a man page from a public header: its comments become
# the prose and its declarations the code blocks, in the header's order,
# so the page says what the header says (txpath-driver(7) is made from
# include/txpath/driver.h at build time).
#
# The header's convention: a first comment "txpath/NAME.h - summary.", then
# the rest; a "-- title --" comment starts a section; inside a struct, a
# comment "op: what it does" documents the op declared after it, and its
# lines "Synchronization:", "Context:", "Return codes:" are tagged.
# Include guards, #include and the extern "C" lines are left out.
# Variables: page (txpath-driver), section (7), version (txpath 0.4.0),
# see (SEE ALSO, roff).  Needs roff.awk (-f roff.awk -f THIS).

function code_begin() {
	if (!code) {
		print ".PP"
		print ".RS"
		print ".nf"
		code = 1
	}
}

function code_end() {
	if (code) {
		print ".fi"
		print ".RE"
		code = 0
	}
}

# The text of a comment line: without its " * " (or "/* ", " */").
function comment_text(s) {
	sub(/^[ \t]*\/\*+ ?/, "", s)
	sub(/[ \t]*\*+\/[ \t]*$/, "", s)
	sub(/^[ \t]*\* ?/, "", s)
	return s
}

# A comment, collected in lines[1..n], as prose.
function emit_comment(   i, s, first) {
	code_end()
	if (n == 1 && lines[1] ~ /^-- .* -*$/) {
		s = lines[1]
		sub(/^-- /, "", s)
		sub(/ -*$/, "", s)
		print ".SH \"" esc(toupper(s)) "\""
		return
	}
	print ".PP"
	first = 1
	for (i = 1; i <= n; i++) {
		s = lines[i]
		if (s == "") {
			print ".PP"
			continue
		}
		if (first && depth > 0 && match(s, /^[a-z_]+: /)) {
			print ".SS " substr(s, 1, RLENGTH - 2)
			s = substr(s, RLENGTH + 1)
		} else if (match(s, /^(Synchronization|Context|Return codes): /)) {
			print ".TP"
			print ".B " substr(s, 1, RLENGTH - 2)
			s = substr(s, RLENGTH + 1)
		}
		first = 0
		print esc(s)
	}
}

BEGIN {
	title(page, section, version)
	state = "top"	# top: the first comment; body: the rest
}

state == "top" && /^\/\*/ {
	next
}
state == "top" && /^ \*\/$/ {
	state = "body"
	next
}
state == "top" {
	s = comment_text($0)
	if (!named) {
		sub(/^[^ ]+ - /, "", s)
		sub(/\.$/, "", s)
		print ".SH NAME"
		print esc(page) " \\- " esc(s)
		print ".SH DESCRIPTION"
		named = 1
	} else if (s == "") {
		print ".PP"
	} else {
		print esc(s)
	}
	next
}

# The extern "C" block's own lines, the guards and the includes.
/^#ifdef __cplusplus$/ {
	skip = 1
	next
}
skip {
	if ($0 ~ /^#endif/)
		skip = 0
	next
}
/^#(ifndef|endif|include)/ || /^#define TXPATH_[A-Z_]+_H$/ || /^[ \t]*$/ {
	next
}

# A comment of its own lines.
incomment {
	if ($0 ~ /\*\//) {
		incomment = 0
		s = comment_text($0)
		if (s != "")
			lines[++n] = s
		emit_comment()
	} else {
		lines[++n] = comment_text($0)
	}
	next
}
/^[ \t]*\/\*/ {
	n = 0
	if ($0 ~ /\*\//) {
		lines[++n] = comment_text($0)
		emit_comment()
	} else {
		incomment = 1
		s = comment_text($0)
		if (s != "")
			lines[++n] = s
	}
	next
}

# Tabs to spaces, at stops every eight columns.
function untab(s,   out, i, c) {
	out = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (c == "\t")
			out = out sprintf("%*s", 8 - length(out) % 8, "")
		else
			out = out c
	}
	return out
}

# Code: as it is.
{
	code_begin()
	print esc(untab($0))
	if ($0 ~ /\{[ \t]*$/)
		depth++
	if ($0 ~ /^[ \t]*\}/)
		depth--
}

END {
	code_end()
	if (see != "") {
		print ".SH SEE ALSO"
		print see
	}
}
