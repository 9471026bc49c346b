# roff.awk - what the man page makers (help2man.awk, header2man.awk)
# share; loaded before them with a second -f.

# roff-safe text: backslashes, hyphens as minus signs (options stay
# copyable), a leading dot or quote made inert.
function esc(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.']/)
		s = "\\&" s
	return s
}

# The title line of page(section), from version ("txpath 0.4.0").
function title(page, section, version) {
	printf ".TH %s %s \"\" \"%s\" \"txpath manual\"\n", toupper(page), section, version
}
