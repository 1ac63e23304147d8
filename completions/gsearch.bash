_gsearch() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="gsearch"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        gsearch)
            opts="-e -f -F -i -S -s -w -x -v -m -a -j -n -N -H -I -b -o -r -A -B -C -0 -c -l -q -. -g -t -T -L -d -u -U -E -z -M -p -P -h -V --regexp --file --fixed-strings --no-fixed-strings --ignore-case --smart-case --case-sensitive --word-regexp --line-regexp --invert-match --max-count --binary --text --mmap --no-mmap --threads --line-number --no-line-number --with-filename --no-filename --heading --no-heading --byte-offset --column --no-column --only-matching --replace --after-context --before-context --context --context-separator --no-context-separator --color --null --vimgrep --json --count --count-matches --include-zero --files-with-matches --files-without-match --quiet --stats --sort --hidden --no-hidden --no-ignore --glob --no-require-git --type --type-not --files --type-list --follow --no-follow --maxdepth --max-depth --unrestricted --engine --opencl-device --list-devices --verify --sorted --generate --multiline --no-multiline --multiline-dotall --no-multiline-dotall --encoding --no-encoding --search-zip --no-search-zip --pre --no-pre --pre-glob --no-config --debug --trace --sortr --sort-files --no-sort-files --type-add --type-clear --iglob --glob-case-insensitive --no-glob-case-insensitive --max-filesize --one-file-system --no-one-file-system --ignore-file --ignore-file-case-insensitive --no-ignore-file-case-insensitive --no-ignore-dot --ignore-dot --no-ignore-exclude --ignore-exclude --no-ignore-files --ignore-files --no-ignore-global --ignore-global --no-ignore-parent --ignore-parent --no-ignore-vcs --ignore-vcs --ignore --require-git --no-binary --no-text --crlf --no-crlf --null-data --passthrough --passthru --trim --no-trim --max-columns --max-columns-preview --no-max-columns-preview --stop-on-nonmatch --colors --field-context-separator --field-match-separator --path-separator --hyperlink-format --hostname-bin --line-buffered --no-line-buffered --block-buffered --no-block-buffered --pretty --no-messages --messages --no-ignore-messages --ignore-messages --regex-size-limit --dfa-size-limit --no-unicode --unicode --auto-hybrid-regex --no-auto-hybrid-regex --pcre2 --no-pcre2 --no-byte-offset --no-include-zero --no-invert-match --no-json --no-stats --pcre2-version --help --version --no-pcre2-unicode --pcre2-unicode"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --regexp)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -e)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -f)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -m)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --threads)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -j)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --replace)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -r)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after-context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -A)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --before-context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -B)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -C)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context-separator)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "never auto always ansi" -- "${cur}"))
                    return 0
                    ;;
                --sort)
                    COMPREPLY=($(compgen -W "path modified accessed created none" -- "${cur}"))
                    return 0
                    ;;
                --glob)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -g)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --type)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -t)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --type-not)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -T)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-depth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --maxdepth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -d)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --engine)
                    COMPREPLY=($(compgen -W "auto cpu opencl default pcre2" -- "${cur}"))
                    return 0
                    ;;
                --opencl-device)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --generate)
                    COMPREPLY=($(compgen -W "man complete-bash complete-zsh complete-fish complete-powershell" -- "${cur}"))
                    return 0
                    ;;
                --encoding)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -E)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pre)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --pre-glob)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --sortr)
                    COMPREPLY=($(compgen -W "path modified accessed created none" -- "${cur}"))
                    return 0
                    ;;
                --type-add)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --type-clear)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --iglob)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-filesize)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --ignore-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-columns)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -M)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --colors)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --field-context-separator)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --field-match-separator)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --path-separator)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hyperlink-format)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --hostname-bin)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --regex-size-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --dfa-size-limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _gsearch -o nosort -o bashdefault -o default gsearch
else
    complete -F _gsearch -o bashdefault -o default gsearch
fi
