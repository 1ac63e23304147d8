
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'gsearch' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'gsearch'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'gsearch' {
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'A pattern to search for; may be given many times (any may match)')
            [CompletionResult]::new('--regexp', '--regexp', [CompletionResultType]::ParameterName, 'A pattern to search for; may be given many times (any may match)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Read patterns from a file, one per line (''-'' reads standard input)')
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read patterns from a file, one per line (''-'' reads standard input)')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Stop reading a file after NUM matching lines')
            [CompletionResult]::new('--max-count', '--max-count', [CompletionResultType]::ParameterName, 'Stop reading a file after NUM matching lines')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'The number of threads to search with (0 picks automatically)')
            [CompletionResult]::new('--threads', '--threads', [CompletionResultType]::ParameterName, 'The number of threads to search with (0 picks automatically)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Replace every match with TEXT in the output (`$1`, `$name` refer to capture groups)')
            [CompletionResult]::new('--replace', '--replace', [CompletionResultType]::ParameterName, 'Replace every match with TEXT in the output (`$1`, `$name` refer to capture groups)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Lines of context to show after each match')
            [CompletionResult]::new('--after-context', '--after-context', [CompletionResultType]::ParameterName, 'Lines of context to show after each match')
            [CompletionResult]::new('-B', '-B ', [CompletionResultType]::ParameterName, 'Lines of context to show before each match')
            [CompletionResult]::new('--before-context', '--before-context', [CompletionResultType]::ParameterName, 'Lines of context to show before each match')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Lines of context to show before and after each match')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Lines of context to show before and after each match')
            [CompletionResult]::new('--context-separator', '--context-separator', [CompletionResultType]::ParameterName, 'The string between non-adjacent groups of context lines')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colors')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'Sort results (path) or not (none)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Include (or with ''!'', exclude) files and directories matching GLOB')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Include (or with ''!'', exclude) files and directories matching GLOB')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only search files of type TYPE (see --type-list)')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only search files of type TYPE (see --type-list)')
            [CompletionResult]::new('-T', '-T ', [CompletionResultType]::ParameterName, 'Do not search files of type TYPE')
            [CompletionResult]::new('--type-not', '--type-not', [CompletionResultType]::ParameterName, 'Do not search files of type TYPE')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Descend at most NUM directories below the paths given')
            [CompletionResult]::new('--max-depth', '--max-depth', [CompletionResultType]::ParameterName, 'Descend at most NUM directories below the paths given')
            [CompletionResult]::new('--maxdepth', '--maxdepth', [CompletionResultType]::ParameterName, 'Descend at most NUM directories below the paths given')
            [CompletionResult]::new('--engine', '--engine', [CompletionResultType]::ParameterName, 'Which engine runs the matcher')
            [CompletionResult]::new('--opencl-device', '--opencl-device', [CompletionResultType]::ParameterName, 'The OpenCL device to use: an index from --list-devices or part of its name')
            [CompletionResult]::new('--generate', '--generate', [CompletionResultType]::ParameterName, 'Print the man page or a shell completion script, then exit')
            [CompletionResult]::new('-E', '-E ', [CompletionResultType]::ParameterName, 'The text encoding of files searched: auto (BOM sniffing, the default), none (raw bytes) or any WHATWG label (utf-16le, sjis...)')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'The text encoding of files searched: auto (BOM sniffing, the default), none (raw bytes) or any WHATWG label (utf-16le, sjis...)')
            [CompletionResult]::new('--pre', '--pre', [CompletionResultType]::ParameterName, 'Search the output of COMMAND run with each file''s path as its argument (and the file as its standard input)')
            [CompletionResult]::new('--pre-glob', '--pre-glob', [CompletionResultType]::ParameterName, 'Only files matching GLOB go through --pre (may be given many times)')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'Treat every pattern as a literal string, not a regular expression')
            [CompletionResult]::new('--fixed-strings', '--fixed-strings', [CompletionResultType]::ParameterName, 'Treat every pattern as a literal string, not a regular expression')
            [CompletionResult]::new('--no-fixed-strings', '--no-fixed-strings', [CompletionResultType]::ParameterName, 'no-fixed-strings')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Search case-insensitively (Unicode simple case folding)')
            [CompletionResult]::new('--ignore-case', '--ignore-case', [CompletionResultType]::ParameterName, 'Search case-insensitively (Unicode simple case folding)')
            [CompletionResult]::new('-S', '-S ', [CompletionResultType]::ParameterName, 'Search case-insensitively unless a pattern holds an upper-case letter')
            [CompletionResult]::new('--smart-case', '--smart-case', [CompletionResultType]::ParameterName, 'Search case-insensitively unless a pattern holds an upper-case letter')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Search case-sensitively (the default)')
            [CompletionResult]::new('--case-sensitive', '--case-sensitive', [CompletionResultType]::ParameterName, 'Search case-sensitively (the default)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Only show matches surrounded by word boundaries')
            [CompletionResult]::new('--word-regexp', '--word-regexp', [CompletionResultType]::ParameterName, 'Only show matches surrounded by word boundaries')
            [CompletionResult]::new('-x', '-x', [CompletionResultType]::ParameterName, 'Only show matches surrounded by line boundaries')
            [CompletionResult]::new('--line-regexp', '--line-regexp', [CompletionResultType]::ParameterName, 'Only show matches surrounded by line boundaries')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show lines that do not match')
            [CompletionResult]::new('--invert-match', '--invert-match', [CompletionResultType]::ParameterName, 'Show lines that do not match')
            [CompletionResult]::new('--binary', '--binary', [CompletionResultType]::ParameterName, 'Search binary files, suppressing their matches (no NUL check quits)')
            [CompletionResult]::new('-a', '-a', [CompletionResultType]::ParameterName, 'Search binary files as if they were text')
            [CompletionResult]::new('--text', '--text', [CompletionResultType]::ParameterName, 'Search binary files as if they were text')
            [CompletionResult]::new('--mmap', '--mmap', [CompletionResultType]::ParameterName, 'Search using memory maps when possible')
            [CompletionResult]::new('--no-mmap', '--no-mmap', [CompletionResultType]::ParameterName, 'Never use memory maps')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show line numbers (1-based)')
            [CompletionResult]::new('--line-number', '--line-number', [CompletionResultType]::ParameterName, 'Show line numbers (1-based)')
            [CompletionResult]::new('-N', '-N ', [CompletionResultType]::ParameterName, 'Suppress line numbers')
            [CompletionResult]::new('--no-line-number', '--no-line-number', [CompletionResultType]::ParameterName, 'Suppress line numbers')
            [CompletionResult]::new('-H', '-H ', [CompletionResultType]::ParameterName, 'Print the file path with each matching line')
            [CompletionResult]::new('--with-filename', '--with-filename', [CompletionResultType]::ParameterName, 'Print the file path with each matching line')
            [CompletionResult]::new('-I', '-I ', [CompletionResultType]::ParameterName, 'Never print the file path with matches')
            [CompletionResult]::new('--no-filename', '--no-filename', [CompletionResultType]::ParameterName, 'Never print the file path with matches')
            [CompletionResult]::new('--heading', '--heading', [CompletionResultType]::ParameterName, 'Print the file path above its matches (the default on a terminal)')
            [CompletionResult]::new('--no-heading', '--no-heading', [CompletionResultType]::ParameterName, 'Print the file path on every matching line instead of above them')
            [CompletionResult]::new('-b', '-b', [CompletionResultType]::ParameterName, 'Print the 0-based byte offset before each output line')
            [CompletionResult]::new('--byte-offset', '--byte-offset', [CompletionResultType]::ParameterName, 'Print the 0-based byte offset before each output line')
            [CompletionResult]::new('--column', '--column', [CompletionResultType]::ParameterName, 'Show the 1-based column of the first match (implies -n)')
            [CompletionResult]::new('--no-column', '--no-column', [CompletionResultType]::ParameterName, 'no-column')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Print only the matched parts of a line, each on its own line')
            [CompletionResult]::new('--only-matching', '--only-matching', [CompletionResultType]::ParameterName, 'Print only the matched parts of a line, each on its own line')
            [CompletionResult]::new('--no-context-separator', '--no-context-separator', [CompletionResultType]::ParameterName, 'Print nothing between non-adjacent groups of context lines')
            [CompletionResult]::new('-0', '-0', [CompletionResultType]::ParameterName, 'Follow file paths with a NUL byte instead of '':'' or a newline')
            [CompletionResult]::new('--null', '--null', [CompletionResultType]::ParameterName, 'Follow file paths with a NUL byte instead of '':'' or a newline')
            [CompletionResult]::new('--vimgrep', '--vimgrep', [CompletionResultType]::ParameterName, 'Print one line per match as path:line:column:text')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON Lines (ripgrep''s messages)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Print the number of matching lines per file')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Print the number of matching lines per file')
            [CompletionResult]::new('--count-matches', '--count-matches', [CompletionResultType]::ParameterName, 'Print the number of matches per file')
            [CompletionResult]::new('--include-zero', '--include-zero', [CompletionResultType]::ParameterName, 'With -c or --count-matches, also print files with zero matches')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Print only the paths of files with at least one match')
            [CompletionResult]::new('--files-with-matches', '--files-with-matches', [CompletionResultType]::ParameterName, 'Print only the paths of files with at least one match')
            [CompletionResult]::new('--files-without-match', '--files-without-match', [CompletionResultType]::ParameterName, 'Print only the paths of files without a match')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing; exit 0 at the first match')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing; exit 0 at the first match')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Print statistics (and which engine and device ran) at the end')
            [CompletionResult]::new('--hidden', '--hidden', [CompletionResultType]::ParameterName, 'Search hidden files and directories')
            [CompletionResult]::new('--no-hidden', '--no-hidden', [CompletionResultType]::ParameterName, 'no-hidden')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Do not respect .gitignore, .ignore or .rgignore files')
            [CompletionResult]::new('--no-require-git', '--no-require-git', [CompletionResultType]::ParameterName, 'Respect .gitignore files even outside a git repository')
            [CompletionResult]::new('--files', '--files', [CompletionResultType]::ParameterName, 'Print each file that would be searched, without searching')
            [CompletionResult]::new('--type-list', '--type-list', [CompletionResultType]::ParameterName, 'Print every known file type and its globs, then exit')
            [CompletionResult]::new('-L', '-L ', [CompletionResultType]::ParameterName, 'Follow symbolic links')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'Follow symbolic links')
            [CompletionResult]::new('--no-follow', '--no-follow', [CompletionResultType]::ParameterName, 'no-follow')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Search more: -u ignores ignore files, -uu also hidden files, -uuu also binary files')
            [CompletionResult]::new('--unrestricted', '--unrestricted', [CompletionResultType]::ParameterName, 'Search more: -u ignores ignore files, -uu also hidden files, -uuu also binary files')
            [CompletionResult]::new('--list-devices', '--list-devices', [CompletionResultType]::ParameterName, 'List every OpenCL platform and device, marking the one auto would use')
            [CompletionResult]::new('--verify', '--verify', [CompletionResultType]::ParameterName, 'Search again with the CPU engine and report any difference (exit 2)')
            [CompletionResult]::new('--sorted', '--sorted', [CompletionResultType]::ParameterName, 'Look up lines starting with the keys in a bytewise-sorted file (like look(1), many keys at once)')
            [CompletionResult]::new('-U', '-U ', [CompletionResultType]::ParameterName, 'Let matches span lines (a pattern may match line terminators)')
            [CompletionResult]::new('--multiline', '--multiline', [CompletionResultType]::ParameterName, 'Let matches span lines (a pattern may match line terminators)')
            [CompletionResult]::new('--no-multiline', '--no-multiline', [CompletionResultType]::ParameterName, 'Matches never span lines (the default)')
            [CompletionResult]::new('--multiline-dotall', '--multiline-dotall', [CompletionResultType]::ParameterName, 'With -U, ''.'' matches line terminators too')
            [CompletionResult]::new('--no-multiline-dotall', '--no-multiline-dotall', [CompletionResultType]::ParameterName, 'no-multiline-dotall')
            [CompletionResult]::new('--no-encoding', '--no-encoding', [CompletionResultType]::ParameterName, 'no-encoding')
            [CompletionResult]::new('-z', '-z', [CompletionResultType]::ParameterName, 'Search compressed files (gzip, bzip2, xz, lzma, lz4, zstd, brotli, .Z) through their decompressors found on PATH')
            [CompletionResult]::new('--search-zip', '--search-zip', [CompletionResultType]::ParameterName, 'Search compressed files (gzip, bzip2, xz, lzma, lz4, zstd, brotli, .Z) through their decompressors found on PATH')
            [CompletionResult]::new('--no-search-zip', '--no-search-zip', [CompletionResultType]::ParameterName, 'no-search-zip')
            [CompletionResult]::new('--no-pre', '--no-pre', [CompletionResultType]::ParameterName, 'Run no preprocessor')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
