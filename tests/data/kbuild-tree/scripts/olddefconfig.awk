# olddefconfig for the test tree: the last value given for a symbol wins, a
# symbol whose dependencies are not set is dropped, one this tree does not
# know is dropped; a tristate built in depending on a module becomes a module
# (a bool may be y on a module).
# Arguments: Kconfig .config
FNR == NR {
	if ($1 !~ /^#/ && NF >= 3) {
		order[++symbols] = $1
		type[$1] = $2
		deps[$1] = ""
		for (i = 4; i <= NF; i++)
			deps[$1] = deps[$1] " " $i
	}
	next
}
/^CONFIG_[A-Za-z0-9_]+=/ {
	name = substr($0, 8, index($0, "=") - 8)
	value[name] = substr($0, index($0, "=") + 1)
	next
}
/^# CONFIG_[A-Za-z0-9_]+ is not set$/ {
	value[substr($2, 8)] = "n"
}
END {
	for (s = 1; s <= symbols; s++) {
		name = order[s]
		v = (name in value) ? value[name] : "n"
		count = split(deps[name], needed, " ")
		for (d = 1; d <= count; d++) {
			dep = (needed[d] in final) ? final[needed[d]] : "n"
			if (dep == "n")
				v = "n"
			else if (dep == "m" && v == "y" && type[name] == "tristate")
				v = "m"
		}
		final[name] = v
		if (v == "n")
			print "# CONFIG_" name " is not set"
		else
			print "CONFIG_" name "=" v
	}
}
