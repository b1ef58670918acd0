# bash completion for mmprof(1).                        -*- shell-script -*-
#
# Commands come from `mmprof --help` and each command's options from
# `mmprof CMD --help`, read at completion time: a new command or option
# completes without an edit here.  Positional arguments of report and diff
# (and files of -o, --gate-file and the like) complete to .data files,
# directories being offered so one can descend.  After `record --` the
# rest of the line is a command line and is completed as one.
#
# Installed by `make install` into share/bash-completion/completions/mmprof.

_mmprof_commands()
{
	"$1" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && !NF { exit } on { print $1 }'
}

# Long and short options of one command, from its --help ("--[no-]x" gives both).
_mmprof_options()
{
	"$1" "$2" --help 2>&1 |
		grep -oE '(^|[ ,])(-[A-Za-z0-9]|--(\[no-\])?[a-z][a-z0-9-]*)' |
		sed -E 's/^[ ,]*//; s/^--\[no-\](.*)/--\1\n--no-\1/'
}

# Does option $3 of command $2 take an argument?  In its --help line the
# option part (before the two-space gap) ends with a metavariable:
# "-o, --output FILE", "-g, --call-graph callee|caller".
_mmprof_takes_arg()
{
	"$1" "$2" --help 2>&1 | awk -v o="$3" '
		{
			sub(/^ +/, "")
			spec = $0
			if ((i = index(spec, "  ")) > 0)
				spec = substr(spec, 1, i - 1)
			n = split(spec, t, /,? /)
			hit = 0
			for (k = 1; k <= n; k++) {
				x = t[k]
				if (x ~ /^--\[no-\]/ && o == "--no-" substr(x, 8))
					hit = 1
				sub(/\[no-\]/, "", x)
				if (x == o)
					hit = 1
			}
			if (hit && t[n] !~ /^-/)
				found = 1
		}
		END { exit !found }'
}

# The values of option $3 of command $2 when its --help metavariable lists
# them ("callee|caller", "fp|dwarf[,SIZE]|lbr": fp dwarf lbr), one a line;
# nothing for a free-form one (FILE, N).  Per command: report's
# --call-graph and record's take different values.
_mmprof_choices()
{
	"$1" "$2" --help 2>&1 | awk -v o="$3" '
		{
			sub(/^ +/, "")
			spec = $0
			if ((i = index(spec, "  ")) > 0)
				spec = substr(spec, 1, i - 1)
			n = split(spec, t, /,? /)
			# the first word after the option that is not an option ("-g,
			# --call-graph X"; a long one leaves one blank before the text)
			for (k = 1; k <= n && t[k] != o; k++)
				;
			if (k > n)
				next
			for (k++; k <= n && t[k] ~ /^-/; k++)
				;
			if (k > n || t[k] !~ /\|/)
				next
			gsub(/\[[^]]*\]/, "", t[k])
			m = split(t[k], v, "|")
			for (j = 1; j <= m; j++)
				print v[j]
			exit
		}'
}

_mmprof_data_files()
{
	local IFS=$'\n'
	COMPREPLY=($(compgen -f -X '!*.data' -- "$1") $(compgen -d -- "$1"))
	compopt -o filenames 2>/dev/null
}

_mmprof()
{
	local cur prev mmprof cmd i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	mmprof=${COMP_WORDS[0]}
	COMPREPLY=()

	# The command word: the first one after mmprof.
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$(_mmprof_commands "$mmprof") --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}

	# record -- CMD ARGS: complete the workload's command line.
	for ((i = 2; i < COMP_CWORD; i++)); do
		if [ "${COMP_WORDS[i]}" = -- ]; then
			if [ "$cmd" = record ] && declare -F _command_offset >/dev/null; then
				_command_offset $((i + 1))
			elif [ "$cmd" = record ]; then
				COMPREPLY=($(compgen -c -f -- "$cur"))
			else
				_mmprof_data_files "$cur"
			fi
			return
		fi
	done

	case $cmd in
	help)
		COMPREPLY=($(compgen -W "$(_mmprof_commands "$mmprof")" -- "$cur"))
		return ;;
	version)
		return ;;
	esac

	# The argument of an option: files for file-like ones, nothing to guess
	# for the others (numbers, event names).
	if [[ $prev == -* ]] && _mmprof_takes_arg "$mmprof" "$cmd" "$prev"; then
		case $prev in
		-o|--output|--gate-file|--html|--workload-output|--vmlinux|--store|--*file*|--*dir*)
			compopt -o filenames 2>/dev/null
			COMPREPLY=($(compgen -f -- "$cur")) ;;
		-f|--format)
			COMPREPLY=($(compgen -W "lkp json csv markdown" -- "$cur")) ;;
		-g|--call-graph)
			COMPREPLY=($(compgen -W "$(_mmprof_choices "$mmprof" "$cmd" "$prev")" -- "$cur")) ;;
		--gate-column)
			# the compared columns of the .data files on the line so far
			local w names="new" k=0
			for w in "${COMP_WORDS[@]}"; do
				[[ $w == *.data ]] && k=$((k + 1))
			done
			for ((w = 1; w < k; w++)); do
				names="$names new$w"
			done
			COMPREPLY=($(compgen -W "$names" -- "$cur")) ;;
		-e|--event)
			COMPREPLY=($(compgen -W "cpu-clock task-clock page-faults cycles instructions \
				context-switches cpu-migrations minor-faults major-faults" -- "$cur")) ;;
		esac
		return
	fi

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_mmprof_options "$mmprof" "$cmd")" -- "$cur"))
		return
	fi
	case $cmd in
	record)
		COMPREPLY=($(compgen -W "--" -- "$cur")) ;;
	*)
		_mmprof_data_files "$cur" ;;
	esac
}
complete -F _mmprof mmprof
