# help2man.awk - a man page from a command's --help text, so the two say
# the same thing: the page is made at build time from the binary's own
# output (scripts/man.sh), never written by hand.
#
# Input: the --help text of txpath's convention:
#   usage: txpath CMD ...          (more "       txpath CMD ..." lines)
#   <blank>
#   paragraphs (plain text), "heading:" lines,
#   "  --opt ARG   what it does"   (a term, two spaces or more, its text;
#                                   the text may go on in lines indented
#                                   deeper than the term)
#   other indented lines           (examples, tables: kept as they are)
# Variables: page (txpath-run), section (1), version (txpath 0.4.0),
# summary (the NAME line's text), see (SEE ALSO, roff).
#
# usage: awk -v page=... -v section=1 -v version=... -v summary=... -v see=... \
#   -f roff.awk -f help2man.awk

function end_pre() {
	if (pre) {
		print ".fi"
		print ".RE"
		pre = 0
	}
}

# Leave the terms: a nested list's indent, then the list.
function end_terms() {
	end_pre()
	if (nested) {
		print ".RE"
		nested = 0
	}
	term_indent = -1
}

function indent_of(s) {
	match(s, /^ */)
	return RLENGTH
}

BEGIN {
	title(page, section, version)
	print ".SH NAME"
	print esc(page) " \\- " esc(summary)
	state = "usage"	# usage, then body
}

# A line ending in a backslash goes on in the next one, as in a shell.
/ \\$/ {
	held = held substr($0, 1, length($0) - 2)
	next
}
held != "" {
	s = $0
	sub(/^ +/, " ", s)
	$0 = held s
	held = ""
}

state == "usage" && /^usage: / {
	print ".SH SYNOPSIS"
	print ".nf"
	sub(/^usage: /, "")
	print esc($0)
	next
}
state == "usage" && /^ +[^ ]/ {
	sub(/^ +/, "")
	print esc($0)
	next
}
state == "usage" {
	print ".fi"
	print ".SH DESCRIPTION"
	state = "body"
	term_indent = -1
}

/^$/ {
	end_terms()
	blank = 1
	next
}

# A heading: an unindented line ending in a colon, after a blank line.
blank && /^[^ ].*:$/ {
	end_terms()
	h = $0
	sub(/:$/, "", h)
	print ".SS \"" esc(h) "\""
	blank = 0
	next
}

# Plain text: a paragraph, filled.
/^[^ ]/ {
	if (blank || term_indent >= 0)
		print ".PP"
	end_terms()
	blank = 0
	print esc($0)
	next
}

# More text of the term above: from the column its text started at (or,
# for a term alone on its line, indented deeper than the term).
term_indent >= 0 && (text_col >= 0 ? indent_of($0) >= text_col : indent_of($0) > term_indent) {
	if (text_col < 0)
		text_col = indent_of($0)
	s = $0
	sub(/^ +/, "", s)
	print esc(s)
	next
}

# A term and its text ("  --threads N     producer threads"), or an
# option alone whose text follows on deeper lines ("  --runner A|B").  A
# term indented deeper than the one above it starts a nested list.
/^ +[^ ]/ && (match($0, /^ +[^ ]([^ ]| [^ ])*  +[^ -]/) || /^ +-/) {
	end_pre()
	ind = indent_of($0)
	if (term_indent >= 0 && ind > term_indent && !nested) {
		print ".RS"
		nested = ind
	} else if (nested && ind < nested) {
		print ".RE"
		nested = 0
	}
	term_indent = ind
	line = substr($0, ind + 1)
	# The text starts after two spaces, never with a dash: "--a X  --b Y"
	# is a term of two options.
	if (match(line, /  +[^ -]/)) {
		term = substr(line, 1, RSTART - 1)
		text = substr(line, RSTART + RLENGTH - 1)
		text_col = ind + RSTART + RLENGTH - 2
	} else {
		term = line
		text = ""
		text_col = -1
	}
	print ".TP"
	print ".B " esc(term)
	if (text != "")
		print esc(text)
	blank = 0
	next
}

# Anything else indented: as it is.
{
	if (!pre) {
		print ".RS"
		print ".nf"
		pre = 1
	}
	s = $0
	sub(/^  /, "", s)
	print esc(s)
	blank = 0
}

END {
	end_terms()
	if (state == "usage")
		print ".fi"
	if (see != "") {
		print ".SH SEE ALSO"
		print see
	}
}
