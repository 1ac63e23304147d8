complete -c gsearch -s e -l regexp -d 'A pattern to search for; may be given many times (any may match)' -r
complete -c gsearch -s f -l file -d 'Read patterns from a file, one per line (\'-\' reads standard input)' -r -F
complete -c gsearch -s m -l max-count -d 'Stop reading a file after NUM matching lines' -r
complete -c gsearch -s j -l threads -d 'The number of threads to search with (0 picks automatically); N also bounds the threads that split one big file or fill a device\'s buffers' -r
complete -c gsearch -s r -l replace -d 'Replace every match with TEXT in the output (`$1`, `$name` refer to capture groups)' -r
complete -c gsearch -s A -l after-context -d 'Lines of context to show after each match' -r
complete -c gsearch -s B -l before-context -d 'Lines of context to show before each match' -r
complete -c gsearch -s C -l context -d 'Lines of context to show before and after each match' -r
complete -c gsearch -l context-separator -d 'The string between non-adjacent groups of context lines' -r
complete -c gsearch -l color -d 'When to use colors' -r -f -a "never\t''
auto\t''
always\t''
ansi\t''"
complete -c gsearch -l sort -d 'Sort results (path) or not (none)' -r -f -a "path\t'Sort by file path (searches with one thread)'
modified\t'Sort by the time each file was last modified'
accessed\t'Sort by the time each file was last accessed'
created\t'Sort by the time each file was created'
none\t'No sorting (the default; searches in parallel)'"
complete -c gsearch -s g -l glob -d 'Include (or with \'!\', exclude) files and directories matching GLOB' -r
complete -c gsearch -s t -l type -d 'Only search files of type TYPE (see --type-list)' -r
complete -c gsearch -s T -l type-not -d 'Do not search files of type TYPE' -r
complete -c gsearch -s d -l max-depth -l maxdepth -d 'Descend at most NUM directories below the paths given' -r
complete -c gsearch -l engine -d 'Which engine runs the matcher' -r -f -a "auto\t'A GPU or accelerator when the work is big enough, else the CPU (the default); given, also ripgrep\'s `--engine auto`: PCRE2 for patterns the default engine cannot compile'
cpu\t'Always the CPU engine'
opencl\t'Always an OpenCL device (a CPU-type device only when no other exists)'
default\t'ripgrep\'s name for its default regex engine: gsearch\'s `auto`'
pcre2\t'The PCRE2 engine (as `-P`): look-around and backreferences, on the CPU'"
complete -c gsearch -l opencl-device -d 'The OpenCL devices to use, comma-separated: indexes from --list-devices, parts of names (each the first such device not already listed), or all. Default: every GPU and accelerator; each takes batches from one queue. On NVIDIA only the GPUs a search can use are started (see CUDA_VISIBLE_DEVICES)' -r
complete -c gsearch -l generate -d 'Print the man page or a shell completion script, then exit' -r -f -a "man\t''
complete-bash\t''
complete-zsh\t''
complete-fish\t''
complete-powershell\t''"
complete -c gsearch -s E -l encoding -d 'The text encoding of files searched: auto (BOM sniffing, the default), none (raw bytes) or any WHATWG label (utf-16le, sjis...)' -r
complete -c gsearch -l pre -d 'Search the output of COMMAND run with each file\'s path as its argument (and the file as its standard input)' -r
complete -c gsearch -l pre-glob -d 'Only files matching GLOB go through --pre (may be given many times)' -r
complete -c gsearch -l sortr -d 'Sort results in descending order (path, modified, accessed, created or none)' -r -f -a "path\t'Sort by file path (searches with one thread)'
modified\t'Sort by the time each file was last modified'
accessed\t'Sort by the time each file was last accessed'
created\t'Sort by the time each file was created'
none\t'No sorting (the default; searches in parallel)'"
complete -c gsearch -l type-add -d 'Add a file type definition, as NAME:GLOB or NAME:include:OTHER,...' -r
complete -c gsearch -l type-clear -d 'Clear the globs of file type TYPE (before adding any)' -r
complete -c gsearch -l iglob -d 'Like -g, but the glob matches case-insensitively' -r
complete -c gsearch -l max-filesize -d 'Skip files larger than NUM bytes (suffixes K, M and G allowed)' -r
complete -c gsearch -l ignore-file -d 'Read ignore rules (gitignore syntax) from PATH too; may be repeated' -r -F
complete -c gsearch -s M -l max-columns -d 'Omit lines longer than NUM bytes (0: no limit)' -r
complete -c gsearch -l colors -d 'Color settings, `{type}:{attribute}:{value}` (`{type}:none` clears)' -r
complete -c gsearch -l field-context-separator -d 'The string between the fields of a context line (default \'-\')' -r
complete -c gsearch -l field-match-separator -d 'The string between the fields of a matching line (default \':\')' -r
complete -c gsearch -l path-separator -d 'The path separator to print (one byte)' -r
complete -c gsearch -l hyperlink-format -d 'Print paths as hyperlinks of this format (or an alias: default, file, vscode...)' -r
complete -c gsearch -l hostname-bin -d 'A program that prints the host name for hyperlinks\' `{host}`' -r -F
complete -c gsearch -l regex-size-limit -d 'The size limit of a compiled regex (NUM with K, M or G)' -r
complete -c gsearch -l dfa-size-limit -d 'The size limit of the regex DFA cache (NUM with K, M or G)' -r
complete -c gsearch -s F -l fixed-strings -d 'Treat every pattern as a literal string, not a regular expression'
complete -c gsearch -l no-fixed-strings
complete -c gsearch -s i -l ignore-case -d 'Search case-insensitively (Unicode simple case folding)'
complete -c gsearch -s S -l smart-case -d 'Search case-insensitively unless a pattern holds an upper-case letter'
complete -c gsearch -s s -l case-sensitive -d 'Search case-sensitively (the default)'
complete -c gsearch -s w -l word-regexp -d 'Only show matches surrounded by word boundaries'
complete -c gsearch -s x -l line-regexp -d 'Only show matches surrounded by line boundaries'
complete -c gsearch -s v -l invert-match -d 'Show lines that do not match'
complete -c gsearch -l binary -d 'Search binary files, suppressing their matches (no NUL check quits)'
complete -c gsearch -s a -l text -d 'Search binary files as if they were text'
complete -c gsearch -l mmap -d 'Search using memory maps when possible'
complete -c gsearch -l no-mmap -d 'Never use memory maps'
complete -c gsearch -s n -l line-number -d 'Show line numbers (1-based)'
complete -c gsearch -s N -l no-line-number -d 'Suppress line numbers'
complete -c gsearch -s H -l with-filename -d 'Print the file path with each matching line'
complete -c gsearch -s I -l no-filename -d 'Never print the file path with matches'
complete -c gsearch -l heading -d 'Print the file path above its matches (the default on a terminal)'
complete -c gsearch -l no-heading -d 'Print the file path on every matching line instead of above them'
complete -c gsearch -s b -l byte-offset -d 'Print the 0-based byte offset before each output line'
complete -c gsearch -l column -d 'Show the 1-based column of the first match (implies -n)'
complete -c gsearch -l no-column
complete -c gsearch -s o -l only-matching -d 'Print only the matched parts of a line, each on its own line'
complete -c gsearch -l no-context-separator -d 'Print nothing between non-adjacent groups of context lines'
complete -c gsearch -s 0 -l null -d 'Follow file paths with a NUL byte instead of \':\' or a newline'
complete -c gsearch -l vimgrep -d 'Print one line per match as path:line:column:text'
complete -c gsearch -l json -d 'Print results as JSON Lines (ripgrep\'s messages)'
complete -c gsearch -s c -l count -d 'Print the number of matching lines per file'
complete -c gsearch -l count-matches -d 'Print the number of matches per file'
complete -c gsearch -l include-zero -d 'With -c or --count-matches, also print files with zero matches'
complete -c gsearch -s l -l files-with-matches -d 'Print only the paths of files with at least one match'
complete -c gsearch -l files-without-match -d 'Print only the paths of files without a match'
complete -c gsearch -s q -l quiet -d 'Print nothing; exit 0 at the first match'
complete -c gsearch -l stats -d 'Print statistics (and which engine and device ran) at the end'
complete -c gsearch -s . -l hidden -d 'Search hidden files and directories'
complete -c gsearch -l no-hidden
complete -c gsearch -l no-ignore -d 'Do not respect .gitignore, .ignore or .rgignore files'
complete -c gsearch -l no-require-git -d 'Respect .gitignore files even outside a git repository'
complete -c gsearch -l files -d 'Print each file that would be searched, without searching'
complete -c gsearch -l type-list -d 'Print every known file type and its globs, then exit'
complete -c gsearch -s L -l follow -d 'Follow symbolic links'
complete -c gsearch -l no-follow
complete -c gsearch -s u -l unrestricted -d 'Search more: -u ignores ignore files, -uu also hidden files, -uuu also binary files'
complete -c gsearch -l list-devices -d 'List every OpenCL platform and device, marking the ones auto would use (and renew auto\'s memo of a machine without a GPU)'
complete -c gsearch -l verify -d 'Search again with the CPU engine and report any difference (exit 2)'
complete -c gsearch -l sorted -d 'Look up lines starting with the keys in a bytewise-sorted file (like look(1), many keys at once)'
complete -c gsearch -s U -l multiline -d 'Let matches span lines (a pattern may match line terminators)'
complete -c gsearch -l no-multiline -d 'Matches never span lines (the default)'
complete -c gsearch -l multiline-dotall -d 'With -U, \'.\' matches line terminators too'
complete -c gsearch -l no-multiline-dotall
complete -c gsearch -l no-encoding
complete -c gsearch -s z -l search-zip -d 'Search compressed files (gzip, bzip2, xz, lzma, lz4, zstd, brotli, .Z) through their decompressors found on PATH'
complete -c gsearch -l no-search-zip
complete -c gsearch -l no-pre -d 'Run no preprocessor'
complete -c gsearch -l no-config -d 'Never read the configuration file named by GSEARCH_CONFIG_PATH (or RIPGREP_CONFIG_PATH)'
complete -c gsearch -l debug -d 'Print debug messages (why files are skipped...) on stderr'
complete -c gsearch -l trace -d 'Print even more debug messages than --debug on stderr'
complete -c gsearch -l sort-files -d 'Sort by path (deprecated: use --sort path)'
complete -c gsearch -l no-sort-files
complete -c gsearch -l glob-case-insensitive -d 'Match every -g glob case-insensitively'
complete -c gsearch -l no-glob-case-insensitive
complete -c gsearch -l one-file-system -d 'Do not cross file system boundaries from each path given'
complete -c gsearch -l no-one-file-system
complete -c gsearch -l ignore-file-case-insensitive -d 'Match the rules of ignore files case-insensitively'
complete -c gsearch -l no-ignore-file-case-insensitive
complete -c gsearch -l no-ignore-dot -d 'Do not respect .ignore and .rgignore files'
complete -c gsearch -l ignore-dot
complete -c gsearch -l no-ignore-exclude -d 'Do not respect .git/info/exclude'
complete -c gsearch -l ignore-exclude
complete -c gsearch -l no-ignore-files -d 'Ignore every --ignore-file (even after --no-ignore)'
complete -c gsearch -l ignore-files
complete -c gsearch -l no-ignore-global -d 'Do not respect git\'s global ignore file (core.excludesFile)'
complete -c gsearch -l ignore-global
complete -c gsearch -l no-ignore-parent -d 'Do not respect ignore files in the parent directories'
complete -c gsearch -l ignore-parent
complete -c gsearch -l no-ignore-vcs -d 'Do not respect git\'s ignore files (.gitignore, exclude, global)'
complete -c gsearch -l ignore-vcs
complete -c gsearch -l ignore
complete -c gsearch -l require-git
complete -c gsearch -l no-binary
complete -c gsearch -l no-text
complete -c gsearch -l crlf -d 'Treat CRLF as a line terminator (\'$\' matches before \'\\r\\n\')'
complete -c gsearch -l no-crlf
complete -c gsearch -l null-data -d 'Use NUL as the line terminator (and search binary data as text)'
complete -c gsearch -l passthru -l passthrough -d 'Print every line, matching or not (context that never ends)'
complete -c gsearch -l trim -d 'Trim leading ASCII whitespace from every printed line'
complete -c gsearch -l no-trim
complete -c gsearch -l max-columns-preview -d 'With -M, print a preview of long lines instead of omitting them'
complete -c gsearch -l no-max-columns-preview
complete -c gsearch -l stop-on-nonmatch -d 'Stop reading a file at the first non-matching line after a match (overrides -U, as -U overrides it)'
complete -c gsearch -l line-buffered -d 'Flush output after every line'
complete -c gsearch -l no-line-buffered
complete -c gsearch -l block-buffered -d 'Flush output only when a buffer fills'
complete -c gsearch -l no-block-buffered
complete -c gsearch -s p -l pretty -d 'Alias of --color always --heading --line-number'
complete -c gsearch -l no-messages -d 'Suppress error messages (the exit status is unchanged)'
complete -c gsearch -l messages
complete -c gsearch -l no-ignore-messages -d 'Suppress messages about ignore files that cannot be parsed'
complete -c gsearch -l ignore-messages
complete -c gsearch -l no-unicode -d 'Disable Unicode mode of every pattern'
complete -c gsearch -l unicode
complete -c gsearch -l auto-hybrid-regex -d 'Use PCRE2 for patterns the default engine cannot compile (as ripgrep\'s `--engine auto`)'
complete -c gsearch -l no-auto-hybrid-regex
complete -c gsearch -s P -l pcre2 -d 'Search with PCRE2: look-around, backreferences and the rest of Perl\'s syntax. PCRE2 runs on the CPU only'
complete -c gsearch -l no-pcre2
complete -c gsearch -l no-byte-offset
complete -c gsearch -l no-include-zero
complete -c gsearch -l no-invert-match
complete -c gsearch -l no-json
complete -c gsearch -l no-stats
complete -c gsearch -l pcre2-version -d 'Print the version of PCRE2 (the `-P` engine) and whether its JIT compiler is available'
complete -c gsearch -s h -l help -d 'Print help (-h a summary, --help in full)'
complete -c gsearch -s V -l version -d 'Print the version (-V the number, --version also the build\'s features and the OpenCL devices gsearch sees)'
complete -c gsearch -l no-pcre2-unicode -d 'ripgrep\'s deprecated spelling of `--no-unicode` (for every engine)'
complete -c gsearch -l pcre2-unicode
