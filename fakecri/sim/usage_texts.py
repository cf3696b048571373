"""The usage text busybox 1.35 (Debian's busybox-static, the oracle) prints after a bad command
line, by applet: what follows `Usage: ` (the synopsis first; an empty text where busybox says
`No help available`). Written by scripts/usage_texts.py from `busybox APPLET --help`; do not edit
by hand."""

USAGE_TEXTS: dict[str, str] = {
    '[': '',
    'awk': (
        'awk [OPTIONS] [AWK_PROGRAM] [FILE]...\n\n\t-v VAR=VAL\tSet variable\n\t-F SEP\t\tUse SEP as field separato'
        'r\n\t-f FILE\t\tRead program from FILE\n\t-e AWK_PROGRAM'
    ),
    'base64': (
        'base64 [-d] [-w COL] [FILE]\n\nBase64 encode or decode FILE to standard output\n\n\t-d\tDecode data\n\t-w '
        'COL\tWrap lines at COL (default 76, 0 disables)'
    ),
    'basename': (
        'basename FILE [SUFFIX] | -a FILE... | -s SUFFIX FILE...\n\nStrip directory path and SUFFIX from FILE\n\n\t'
        '-a\t\tAll arguments are FILEs\n\t-s SUFFIX\tRemove SUFFIX (implies -a)'
    ),
    'brctl': (
        'brctl COMMAND [BRIDGE [ARGS]]\n\nManage ethernet bridges\nCommands:\n\taddbr BRIDGE\t\tCreate BRIDGE\n\tde'
        'lbr BRIDGE\t\tDelete BRIDGE\n\taddif BRIDGE IFACE\tAdd IFACE to BRIDGE\n\tdelif BRIDGE IFACE\tDelete IFACE'
        ' from BRIDGE'
    ),
    'cat': (
        'cat [-nbvteA] [FILE]...\n\nPrint FILEs to stdout\n\n\t-n\tNumber output lines\n\t-b\tNumber nonempty lines'
        '\n\t-v\tShow nonprinting characters as ^x or M-x\n\t-t\t...and tabs as ^I\n\t-e\t...and end lines with $\n'
        '\t-A\tSame as -vte'
    ),
    'chgrp': (
        'chgrp [-RhLHPcvf]... GROUP FILE...\n\nChange the group membership of FILEs to GROUP\n\n\t-h\tAffect symlin'
        'ks instead of symlink targets\n\t-L\tTraverse all symlinks to directories\n\t-H\tTraverse symlinks on comm'
        "and line only\n\t-P\tDon't traverse symlinks (default)\n\t-R\tRecurse\n\t-c\tList changed files\n\t-v\tVer"
        'bose\n\t-f\tHide errors'
    ),
    'chmod': (
        'chmod [-Rcvf] MODE[,MODE]... FILE...\n\nMODE is octal number (bit pattern sstrwxrwxrwx) or [ugoa]{+|-|=}[r'
        'wxXst]\n\n\t-R\tRecurse\n\t-c\tList changed files\n\t-v\tVerbose\n\t-f\tHide errors'
    ),
    'chown': (
        'chown [-RhLHPcvf]... USER[:[GRP]] FILE...\n\nChange the owner and/or group of FILEs to USER and/or GRP\n\n'
        '\t-h\tAffect symlinks instead of symlink targets\n\t-L\tTraverse all symlinks to directories\n\t-H\tTraver'
        "se symlinks on command line only\n\t-P\tDon't traverse symlinks (default)\n\t-R\tRecurse\n\t-c\tList chang"
        'ed files\n\t-v\tVerbose\n\t-f\tHide errors'
    ),
    'cmp': (
        'cmp [-ls] [-n NUM] FILE1 [FILE2 [SKIP1 [SKIP2]]]\n\nCompare FILE1 with FILE2 (or stdin)\n\n\t-l\tWrite the'
        ' byte numbers (decimal) and values (octal)\n\t\tfor all differing bytes\n\t-s\tQuiet\n\t-n NUM\tCompare at'
        ' most NUM bytes'
    ),
    'cp': (
        'cp [-arPLHpfinlsTu] SOURCE DEST\nor: cp [-arPLHpfinlsu] SOURCE... { -t DIRECTORY | DIRECTORY }\n\nCopy SOU'
        'RCEs to DEST\n\n\t-a\tSame as -dpR\n\t-R,-r\tRecurse\n\t-d,-P\tPreserve symlinks (default if -R)\n\t-L\tFo'
        'llow all symlinks\n\t-H\tFollow symlinks on command line\n\t-p\tPreserve file attributes if possible\n\t-f'
        "\tOverwrite\n\t-i\tPrompt before overwrite\n\t-n\tDon't overwrite\n\t-l,-s\tCreate (sym)links\n\t-T\tRefus"
        'e to copy if DEST is a directory\n\t-t DIR\tCopy all SOURCEs into DIR\n\t-u\tCopy only newer files'
    ),
    'cut': (
        'cut [OPTIONS] [FILE]...\n\nPrint selected fields from FILEs to stdout\n\n\t-b LIST\tOutput only bytes from'
        ' LIST\n\t-c LIST\tOutput only characters from LIST\n\t-d SEP\tField delimiter for input (default -f TAB, -'
        'F run of whitespace)\n\t-O SEP\tField delimiter for output (default = -d for -f, one space for -F)\n\t-D\t'
        "Don't sort/collate sections or match -fF lines without delimiter\n\t-f LIST\tPrint only these fields (-d i"
        's single char)\n\t-F LIST\tPrint only these fields (-d is regex)\n\t-s\tOutput only lines containing delim'
        'iter\n\t-n\tIgnored'
    ),
    'date': (
        "date [OPTIONS] [+FMT] [[-s] TIME]\n\nDisplay time (using +FMT), or set time\n\n\t-u\t\tWork in UTC (don't "
        "convert to local time)\n\t[-s] TIME\tSet time to TIME\n\t-d TIME\t\tDisplay TIME, not 'now'\n\t-D FMT\t\tF"
        'MT (strptime format) for -s/-d TIME conversion\n\t-r FILE\t\tDisplay last modification time of FILE\n\t-R'
        '\t\tOutput RFC-2822 date\n\t-I[SPEC]\tOutput ISO-8601 date\n\t\t\tSPEC=date (default), hours, minutes, sec'
        'onds or ns\n\nRecognized TIME formats:\n\t@seconds_since_1970\n\thh:mm[:ss]\n\t[YYYY.]MM.DD-hh:mm[:ss]\n\t'
        "YYYY-MM-DD hh:mm[:ss]\n\t[[[[[YY]YY]MM]DD]hh]mm[.ss]\n\t'date TIME' form accepts MMDDhhmm[[YY]YY][.ss] ins"
        'tead'
    ),
    'dd': (
        'dd [if=FILE] [of=FILE] [ibs=N obs=N/bs=N] [count=N] [skip=N] [seek=N]\n\t[conv=notrunc|noerror|sync|fsync]'
        '\n\t[iflag=skip_bytes|count_bytes|fullblock|direct] [oflag=seek_bytes|append|direct]\n\nCopy a file with c'
        'onverting and formatting\n\n\tif=FILE\t\tRead from FILE instead of stdin\n\tof=FILE\t\tWrite to FILE inste'
        'ad of stdout\n\tbs=N\t\tRead and write N bytes at a time\n\tibs=N\t\tRead N bytes at a time\n\tobs=N\t\tWr'
        'ite N bytes at a time\n\tcount=N\t\tCopy only N input blocks\n\tskip=N\t\tSkip N input blocks\n\tseek=N\t'
        "\tSkip N output blocks\n\tconv=notrunc\tDon't truncate output file\n\tconv=noerror\tContinue after read er"
        'rors\n\tconv=sync\tPad blocks with zeros\n\tconv=fsync\tPhysically write data out before finishing\n\tconv'
        '=swab\tSwap every pair of bytes\n\tiflag=skip_bytes\tskip=N is in bytes\n\tiflag=count_bytes\tcount=N is i'
        'n bytes\n\toflag=seek_bytes\tseek=N is in bytes\n\tiflag=direct\tO_DIRECT input\n\toflag=direct\tO_DIRECT '
        'output\n\tiflag=fullblock\tRead full blocks\n\toflag=append\tOpen output in append mode\n\tstatus=noxfer\t'
        'Suppress rate output\n\tstatus=none\tSuppress all output\n\nN may be suffixed by c (1), w (2), b (512), kB'
        ' (1000), k (1024), MB, M, GB, G'
    ),
    'df': (
        'df [-PkmhTai] [-B SIZE] [-t TYPE] [FILESYSTEM]...\n\nPrint filesystem usage statistics\n\n\t-P\tPOSIX outp'
        'ut format\n\t-k\t1024-byte blocks (default)\n\t-m\t1M-byte blocks\n\t-h\tHuman readable (e.g. 1K 243M 2G)'
        '\n\t-T\tPrint filesystem type\n\t-t TYPE\tPrint only mounts of this type\n\t-a\tShow all filesystems\n\t-i'
        '\tInodes\n\t-B SIZE\tBlocksize'
    ),
    'diff': (
        'diff [-abBdiNqrTstw] [-L LABEL] [-S FILE] [-U LINES] FILE1 FILE2\n\nCompare files line by line and output '
        'the differences between them.\nThis implementation supports unified diffs only.\n\n\t-a\tTreat all files a'
        's text\n\t-b\tIgnore changes in the amount of whitespace\n\t-B\tIgnore changes whose lines are all blank\n'
        '\t-d\tTry hard to find a smaller set of changes\n\t-i\tIgnore case differences\n\t-L\tUse LABEL instead of'
        ' the filename in the unified header\n\t-N\tTreat absent files as empty\n\t-q\tOutput only whether files di'
        'ffer\n\t-r\tRecurse\n\t-S\tStart with FILE when comparing directories\n\t-T\tMake tabs line up by prefixin'
        'g a tab when necessary\n\t-s\tReport when two files are the same\n\t-t\tExpand tabs to spaces in output\n'
        '\t-U\tOutput LINES lines of context\n\t-w\tIgnore all whitespace'
    ),
    'dirname': 'dirname FILENAME\n\nStrip non-directory suffix from FILENAME',
    'du': (
        'du [-aHLdclsxhmk] [FILE]...\n\nSummarize disk space used for FILEs (or directories)\n\n\t-a\tShow file siz'
        'es too\n\t-b\tApparent size (including holes)\n\t-L\tFollow all symlinks\n\t-H\tFollow symlinks on command'
        ' line\n\t-d N\tLimit output to directories (and files with -a) of depth < N\n\t-c\tShow grand total\n\t-l'
        '\tCount sizes many times if hard linked\n\t-s\tDisplay only a total for each argument\n\t-x\tSkip director'
        'ies on different filesystems\n\t-h\tSizes in human readable format (e.g., 1K 243M 2G)\n\t-m\tSizes in mega'
        'bytes\n\t-k\tSizes in kilobytes (default)'
    ),
    'egrep': '',
    'env': (
        'env [-i0] [-u NAME]... [-] [NAME=VALUE]... [PROG ARGS]\n\nPrint current environment or run PROG after sett'
        'ing up environment\n\n\t-, -i\tStart with empty environment\n\t-0\tNUL terminated output\n\t-u NAME\tRemov'
        'e variable from environment'
    ),
    'expr': (
        'expr EXPRESSION\n\nPrint the value of EXPRESSION\n\nEXPRESSION may be:\n\tARG1 | ARG2\tARG1 if it is neith'
        'er null nor 0, otherwise ARG2\n\tARG1 & ARG2\tARG1 if neither argument is null or 0, otherwise 0\n\tARG1 <'
        ' ARG2\t1 if ARG1 is less than ARG2, else 0. Similarly:\n\tARG1 <= ARG2\n\tARG1 = ARG2\n\tARG1 != ARG2\n\tA'
        'RG1 >= ARG2\n\tARG1 > ARG2\n\tARG1 + ARG2\tSum of ARG1 and ARG2. Similarly:\n\tARG1 - ARG2\n\tARG1 * ARG2'
        '\n\tARG1 / ARG2\n\tARG1 % ARG2\n\tSTRING : REGEXP\t\tAnchored pattern match of REGEXP in STRING\n\tmatch S'
        'TRING REGEXP\tSame as STRING : REGEXP\n\tsubstr STRING POS LEN\tSubstring of STRING, POS counts from 1\n\t'
        'index STRING CHARS\tIndex in STRING where any CHARS is found, or 0\n\tlength STRING\t\tLength of STRING\n'
        "\tquote TOKEN\t\tInterpret TOKEN as a string, even if\n\t\t\t\tit is a keyword like 'match' or an\n\t\t\t"
        "\toperator like '/'\n\t(EXPRESSION)\t\tValue of EXPRESSION\n\nBeware that many operators need to be escape"
        'd or quoted for shells.\nComparisons are arithmetic if both ARGs are numbers, else\nlexicographical. Patte'
        'rn matches return the string matched between\n\\( and \\) or null; if \\( and \\) are not used, they retur'
        'n the number\nof characters matched or 0.'
    ),
    'fgrep': '',
    'find': (
        'find [-HL] [PATH]... [OPTIONS] [ACTIONS]\n\nSearch for files and perform actions on them.\nFirst failed ac'
        "tion stops processing of current file.\nDefaults: PATH is current directory, action is '-print'\n\n\t-L,-f"
        "ollow\tFollow symlinks\n\t-H\t\t...on command line only\n\t-xdev\t\tDon't descend directories on other fil"
        'esystems\n\t-maxdepth N\tDescend at most N levels. -maxdepth 0 applies\n\t\t\tactions to command line argu'
        "ments only\n\t-mindepth N\tDon't act on first N levels\n\t-depth\t\tAct on directory *after* traversing it"
        "\n\nActions:\n\t( ACTIONS )\tGroup actions for -o / -a\n\t! ACT\t\tInvert ACT's success/failure\n\tACT1 [-"
        'a] ACT2\tIf ACT1 fails, stop, else do ACT2\n\tACT1 -o ACT2\tIf ACT1 succeeds, stop, else do ACT2\n\t\t\tNo'
        'te: -a has higher priority than -o\n\t-name PATTERN\tMatch file name (w/o directory name) to PATTERN\n\t-i'
        'name PATTERN\tCase insensitive -name\n\t-path PATTERN\tMatch path to PATTERN\n\t-ipath PATTERN\tCase insen'
        'sitive -path\n\t-regex PATTERN\tMatch path to regex PATTERN\n\t-type X\t\tFile type is X (one of: f,d,l,b,'
        'c,s,p)\n\t-executable\tFile is executable\n\t-perm MASK\tAt least one mask bit (+MASK), all bits (-MASK),'
        "\n\t\t\tor exactly MASK bits are set in file's mode\n\t-mtime DAYS\tmtime is greater than (+N), less than "
        '(-N),\n\t\t\tor exactly N days in the past\n\t-atime DAYS\tatime +N/-N/N days in the past\n\t-ctime DAYS\t'
        'ctime +N/-N/N days in the past\n\t-mmin MINS\tmtime is greater than (+N), less than (-N),\n\t\t\tor exactl'
        'y N minutes in the past\n\t-amin MINS\tatime +N/-N/N minutes in the past\n\t-cmin MINS\tctime +N/-N/N minu'
        "tes in the past\n\t-newer FILE\tmtime is more recent than FILE's\n\t-inum N\t\tFile has inode number N\n\t"
        '-samefile FILE\tFile is same as FILE\n\t-user NAME/ID\tFile is owned by given user\n\t-group NAME/ID\tFile'
        ' is owned by given group\n\t-size N[bck]\tFile size is N (c:bytes,k:kbytes,b:512 bytes(def.))\n\t\t\t+/-N:'
        ' file size is bigger/smaller than N\n\t-links N\tNumber of links is greater than (+N), less than (-N),\n\t'
        "\t\tor exactly N\n\t-empty\t\tMatch empty file/directory\n\t-prune\t\tIf current file is directory, don't "
        'descend into it\nIf none of the following actions is specified, -print is assumed\n\t-print\t\tPrint file '
        'name\n\t-print0\t\tPrint file name, NUL terminated\n\t-exec CMD ARG ;\tRun CMD with all instances of {} re'
        'placed by\n\t\t\tfile name. Fails if CMD exits with nonzero\n\t-exec CMD ARG + Run CMD with {} replaced by'
        ' list of file names\n\t-quit\t\tExit'
    ),
    'fold': (
        'fold [-bs] [-w WIDTH] [FILE]...\n\nWrap input lines in FILEs (or stdin), writing to stdout\n\n\t-b\tCount '
        'bytes rather than columns\n\t-s\tBreak at spaces\n\t-w\tUse WIDTH columns instead of 80'
    ),
    'free': 'free [-bkmgh]\n\nDisplay free and used memory',
    'grep': (
        'grep [-HhnlLoqvsrRiwFEz] [-m N] [-A|B|C N] { PATTERN | -e PATTERN... | -f FILE... } [FILE]...\n\nSearch fo'
        "r PATTERN in FILEs (or stdin)\n\n\t-H\tAdd 'filename:' prefix\n\t-h\tDo not add 'filename:' prefix\n\t-n\t"
        "Add 'line_no:' prefix\n\t-l\tShow only names of files that match\n\t-L\tShow only names of files that don'"
        't match\n\t-c\tShow only count of matching lines\n\t-o\tShow only the matching part of line\n\t-q\tQuiet. '
        'Return 0 if PATTERN is found, 1 otherwise\n\t-v\tSelect non-matching lines\n\t-s\tSuppress open and read e'
        'rrors\n\t-r\tRecurse\n\t-R\tRecurse and dereference symlinks\n\t-i\tIgnore case\n\t-w\tMatch whole words o'
        'nly\n\t-x\tMatch whole lines only\n\t-F\tPATTERN is a literal (not regexp)\n\t-E\tPATTERN is an extended r'
        'egexp\n\t-z\tNUL terminated input\n\t-m N\tMatch up to N times per file\n\t-A N\tPrint N lines of trailing'
        " context\n\t-B N\tPrint N lines of leading context\n\t-C N\tSame as '-A N -B N'\n\t-e PTRN\tPattern to mat"
        'ch\n\t-f FILE\tRead pattern from file'
    ),
    'groups': 'groups [USER]\n\nPrint the groups USER is in',
    'head': (
        'head [OPTIONS] [FILE]...\n\nPrint first 10 lines of FILEs (or stdin).\nWith more than one FILE, precede ea'
        'ch with a filename header.\n\n\t-n N[bkm]\tPrint first N lines\n\t-n -N[bkm]\tPrint all except N last line'
        's\n\t-c [-]N[bkm]\tPrint first N bytes\n\t\t\t(b:*512 k:*1024 m:*1024^2)\n\t-q\t\tNever print headers\n\t-'
        'v\t\tAlways print headers'
    ),
    'hexdump': (
        'hexdump [-bcdoxCv] [-e FMT] [-f FMT_FILE] [-n LEN] [-s OFS] [FILE]...\n\nDisplay FILEs (or stdin) in a use'
        'r specified format\n\n\t-b\t\t1-byte octal display\n\t-c\t\t1-byte character display\n\t-d\t\t2-byte decim'
        'al display\n\t-o\t\t2-byte octal display\n\t-x\t\t2-byte hex display\n\t-C\t\thex+ASCII 16 bytes per line'
        '\n\t-v\t\tShow all (no dup folding)\n\t-e FORMAT_STR\tExample: \'16/1 "%02x|""\\n"\'\n\t-f FORMAT_FILE\n\t'
        '-n LENGTH\tShow only first LENGTH bytes\n\t-s OFFSET\tSkip OFFSET bytes'
    ),
    'hostname': (
        'hostname [-sidf] [HOSTNAME | -F FILE]\n\nShow or set hostname or DNS domain name\n\n\t-s\tShort\n\t-i\tAdd'
        "resses for the hostname\n\t-d\tDNS domain name\n\t-f\tFully qualified domain name\n\t-F FILE\tUse FILE's c"
        'ontent as hostname'
    ),
    'httpd': (
        'httpd [-ifv[v]] [-c CONFFILE] [-p [IP:]PORT] [-u USER[:GRP]] [-r REALM] [-h HOME]\nor httpd -d/-e/-m STRIN'
        'G\n\nListen for incoming HTTP requests\n\n\t-i\t\tInetd mode\n\t-f\t\tRun in foreground\n\t-v[v]\t\tVerbos'
        'e\n\t-p [IP:]PORT\tBind to IP:PORT (default *:80)\n\t-u USER[:GRP]\tSet uid/gid after binding to port\n\t-'
        'r REALM\tAuthentication Realm for Basic Authentication\n\t-h HOME\t\tHome directory (default .)\n\t-c FILE'
        '\t\tConfiguration file (default {/etc,HOME}/httpd.conf)\n\t-m STRING\tMD5 crypt STRING\n\t-e STRING\tHTML '
        'encode STRING\n\t-d STRING\tURL decode STRING'
    ),
    'id': (
        'id [-ugGnr] [USER]\n\nPrint information about USER or the current user\n\n\t-u\tUser ID\n\t-g\tGroup ID\n'
        '\t-G\tSupplementary group IDs\n\t-n\tPrint names instead of numbers\n\t-r\tPrint real ID instead of effect'
        'ive ID'
    ),
    'ip': (
        'ip [OPTIONS] address|route|link|tunnel|neigh|rule [ARGS]\n\nOPTIONS := -f[amily] inet|inet6|link | -o[neli'
        'ne]\n\nip addr add|del IFADDR dev IFACE | show|flush [dev IFACE] [to PREFIX]\nip route list|flush|add|del|'
        'change|append|replace|test ROUTE\nip link set IFACE [up|down] [arp on|off] [multicast on|off]\n\t[promisc '
        'on|off] [mtu NUM] [name NAME] [qlen NUM] [address MAC]\n\t[master IFACE | nomaster] [netns PID]\nip tunnel'
        ' add|change|del|show [NAME]\n\t[mode ipip|gre|sit] [remote ADDR] [local ADDR] [ttl TTL]\nip neigh show|flu'
        'sh [to PREFIX] [dev DEV] [nud STATE]\nip rule [list] | add|del SELECTOR ACTION'
    ),
    'kill': (
        'kill [-l] [-SIG] PID...\n\nSend a signal (default: TERM) to given PIDs\n\n\t-l\tList all signal names and '
        'numbers'
    ),
    'ln': (
        'ln [-sfnbtv] [-S SUF] TARGET... LINK|DIR\n\nCreate a link LINK or DIR/TARGET to the specified TARGET(s)\n'
        "\n\t-s\tMake symlinks instead of hardlinks\n\t-f\tRemove existing destinations\n\t-n\tDon't dereference sy"
        'mlinks - treat like normal file\n\t-b\tMake a backup of the target (if exists) before link operation\n\t-S'
        ' SUF\tUse suffix instead of ~ when making backup files\n\t-T\tTreat LINK as a file, not DIR\n\t-v\tVerbose'
    ),
    'ls': (
        'ls [-1AaCxdLHRFplinshrSXvctu] [-w WIDTH] [FILE]...\n\nList directory contents\n\n\t-1\tOne column output\n'
        '\t-a\tInclude names starting with .\n\t-A\tLike -a, but exclude . and ..\n\t-x\tList by lines\n\t-d\tList '
        'directory names, not contents\n\t-L\tFollow symlinks\n\t-H\tFollow symlinks on command line\n\t-R\tRecurse'
        '\n\t-p\tAppend / to directory names\n\t-F\tAppend indicator (one of */=@|) to names\n\t-l\tLong format\n\t'
        '-i\tList inode numbers\n\t-n\tList numeric UIDs and GIDs instead of names\n\t-s\tList allocated blocks\n\t'
        '-lc\tList ctime\n\t-lu\tList atime\n\t--full-time\tList full date/time\n\t-h\tHuman readable sizes (1K 243'
        'M 2G)\n\t--group-directories-first\n\t-S\tSort by size\n\t-X\tSort by extension\n\t-v\tSort by version\n\t'
        '-t\tSort by mtime\n\t-tc\tSort by ctime\n\t-tu\tSort by atime\n\t-r\tReverse sort order\n\t-w N\tFormat N '
        'columns wide\n\t--color[={always,never,auto}]'
    ),
    'md5sum': (
        'md5sum [-c[sw]] [FILE]...\n\nPrint or check MD5 checksums\n\n\t-c\tCheck sums against list in FILEs\n\t-s'
        "\tDon't output anything, status code shows success\n\t-w\tWarn about improperly formatted checksum lines"
    ),
    'mkdir': (
        'mkdir [-m MODE] [-p] DIRECTORY...\n\nCreate DIRECTORY\n\n\t-m MODE\tMode\n\t-p\tNo error if exists; make p'
        'arent directories as needed'
    ),
    'mktemp': (
        'mktemp [-dt] [-p DIR] [TEMPLATE]\n\nCreate a temporary file with name based on TEMPLATE and print its name'
        '.\nTEMPLATE must end with XXXXXX (e.g. [/dir/]nameXXXXXX).\nWithout TEMPLATE, -t tmp.XXXXXX is assumed.\n'
        '\n\t-d\tMake directory, not file\n\t-q\tFail silently on errors\n\t-t\tPrepend base directory name to TEMP'
        'LATE\n\t-p DIR\tUse DIR as a base directory (implies -t)\n\t-u\tDo not create anything; print a name\n\nBa'
        'se directory is: -p DIR, else $TMPDIR, else /tmp'
    ),
    'mount': (
        'mount [OPTIONS] [-o OPT] DEVICE NODE\n\nMount a filesystem. Filesystem autodetection requires /proc.\n\n\t'
        "-a\t\tMount all filesystems in fstab\n\t-f\t\tDry run\n\t-i\t\tDon't run mount helper\n\t-r\t\tRead-only m"
        'ount\n\t-t FSTYPE[,...]\tFilesystem type(s)\n\t-T FILE\t\tRead FILE instead of /etc/fstab\n\t-O OPT\t\tMou'
        'nt only filesystems with option OPT (-a only)\n-o OPT:\n\tloop\t\tIgnored (loop devices are autodetected)'
        '\n\t[a]sync\t\tWrites are [a]synchronous\n\t[no]atime\tDisable/enable updates to inode access times\n\t[no'
        ']diratime\tDisable/enable atime updates to directories\n\t[no]relatime\tDisable/enable atime updates relat'
        'ive to modification time\n\t[no]dev\t\t(Dis)allow use of special device files\n\t[no]exec\t(Dis)allow use '
        'of executable files\n\t[no]suid\t(Dis)allow set-user-id-root programs\n\t[r]shared\tConvert [recursively] '
        'to a shared subtree\n\t[r]slave\tConvert [recursively] to a slave subtree\n\t[r]private\tConvert [recursiv'
        'ely] to a private subtree\n\t[un]bindable\tMake mount point [un]able to be bind mounted\n\t[r]bind\t\tBind'
        ' a file or directory [recursively] to another location\n\tmove\t\tRelocate an existing mount point\n\tremo'
        'unt\t\tRemount a mounted filesystem, changing flags\n\tro\t\tSame as -r\n\nThere are filesystem-specific -'
        'o flags.'
    ),
    'mv': (
        'mv [-finT] SOURCE DEST\nor: mv [-fin] SOURCE... { -t DIRECTORY | DIRECTORY }\n\nRename SOURCE to DEST, or '
        "move SOURCEs to DIRECTORY\n\n\t-f\tDon't prompt before overwriting\n\t-i\tInteractive, prompt before overw"
        "rite\n\t-n\tDon't overwrite an existing file\n\t-T\tRefuse to move if DEST is a directory\n\t-t DIR\tMove "
        'all SOURCEs into DIR'
    ),
    'nc': (
        'nc [-iN] [-wN] [-l] [-p PORT] [-f FILE|IPADDR PORT] [-e PROG]\n\nOpen a pipe to IP:PORT or FILE\n\n\t-l\tL'
        'isten mode, for inbound connects\n\t\t(use -ll with -e for persistent server)\n\t-p PORT\tLocal port\n\t-w'
        ' SEC\tConnect timeout\n\t-i SEC\tDelay interval for lines sent\n\t-f FILE\tUse file (ala /dev/ttyS0) inste'
        'ad of network\n\t-e PROG\tRun PROG after connect'
    ),
    'netstat': (
        'netstat [-ral] [-tuwx] [-en]\n\nDisplay networking information\n\n\t-r\tRouting table\n\t-a\tAll sockets\n'
        '\t-l\tListening sockets\n\t\tElse: connected sockets\n\t-t\tTCP sockets\n\t-u\tUDP sockets\n\t-w\tRaw sock'
        "ets\n\t-x\tUnix sockets\n\t\tElse: all socket types\n\t-e\tOther/more information\n\t-n\tDon't resolve nam"
        'es'
    ),
    'nl': (
        'nl [OPTIONS] [FILE]...\n\nWrite FILEs to standard output with line numbers added\n\n\t-b STYLE\tWhich line'
        's to number - a: all, t: nonempty, n: none\n\t-i N\t\tLine number increment\n\t-s STRING\tUse STRING as li'
        'ne number separator\n\t-v N\t\tStart from N\n\t-w N\t\tWidth of line numbers'
    ),
    'nproc': (
        'nproc [--all] [--ignore=N]\n\nPrint number of available CPUs\n\n\t--all\t\tNumber of installed CPUs\n\t--i'
        'gnore=N\tExclude N CPUs'
    ),
    'od': (
        'od [-abcdfhilovxs] [-t TYPE] [-A RADIX] [-N SIZE] [-j SKIP] [-S MINSTR] [-w WIDTH] [FILE]...\n\nPrint FILE'
        's (or stdin) unambiguously, as octal bytes by default'
    ),
    'paste': (
        'paste [-d LIST] [-s] [FILE]...\n\nPaste lines from each input file, separated with tab\n\n\t-d LIST\tUse d'
        'elimiters from LIST, not tab\n\t-s      Serial: one file at a time'
    ),
    'pidof': 'pidof [NAME]...\n\nList PIDs of all processes with names that match NAMEs',
    'ping': (
        'ping [OPTIONS] HOST\n\nSend ICMP ECHO_REQUESTs to HOST\n\n\t-4,-6\t\tForce IP or IPv6 name resolution\n\t-'
        'c CNT\t\tSend only CNT pings\n\t-s SIZE\t\tSend SIZE data bytes in packets (default 56)\n\t-i SECS\t\tInte'
        'rval\n\t-A\t\tPing as soon as reply is received\n\t-t TTL\t\tSet TTL\n\t-I IFACE/IP\tSource interface or I'
        'P address\n\t-W SEC\t\tSeconds to wait for the first response (default 10)\n\t\t\t(after all -c CNT packet'
        's are sent)\n\t-w SEC\t\tSeconds until ping exits (default:infinite)\n\t\t\t(can exit earlier with -c CNT)'
        '\n\t-q\t\tQuiet, only display output at start/finish\n\t-p HEXBYTE\tPayload pattern'
    ),
    'printf': 'printf FORMAT [ARG]...\n\nFormat and print ARG(s) according to FORMAT (a-la C printf)',
    'ps': (
        'ps [-o COL1,COL2=HEADER] [-T]\n\nShow list of processes\n\n\t-o COL1,COL2=HEADER\tSelect columns for displ'
        'ay\n\t-T\t\t\tShow threads'
    ),
    'pwd': 'pwd\n\nPrint the full filename of the current working directory',
    'readlink': (
        'readlink [-fnv] FILE\n\nDisplay the value of a symlink\n\n\t-f\tCanonicalize by following all symlinks\n\t'
        "-n\tDon't add newline\n\t-v\tVerbose"
    ),
    'realpath': 'realpath FILE...\n\nPrint absolute pathnames of FILEs',
    'rev': 'rev [FILE]...\n\nReverse lines of FILE',
    'rm': (
        'rm [-irf] FILE...\n\nRemove (unlink) FILEs\n\n\t-i\tAlways prompt before removing\n\t-f\tNever prompt\n\t-'
        'R,-r\tRecurse'
    ),
    'rmdir': (
        'rmdir [-p] DIRECTORY...\n\nRemove DIRECTORY if it is empty\n\n\t-p\tInclude parents\n\t--ignore-fail-on-no'
        'n-empty'
    ),
    'sed': (
        'sed [-i[SFX]] [-nrE] [-f FILE]... [-e CMD]... [FILE]...\nor: sed [-i[SFX]] [-nrE] CMD [FILE]...\n\n\t-e CM'
        'D\tAdd CMD to sed commands to be executed\n\t-f FILE\tAdd FILE contents to sed commands to be executed\n\t'
        '-i[SFX]\tEdit files in-place (otherwise write to stdout)\n\t\tOptionally back files up, appending SFX\n\t-'
        'n\tSuppress automatic printing of pattern space\n\t-r,-E\tUse extended regex syntax\n\nIf no -e or -f, the'
        ' first non-option argument is the sed command string.\nRemaining arguments are input files (stdin if none)'
        '.'
    ),
    'seq': (
        'seq [-w] [-s SEP] [FIRST [INC]] LAST\n\nPrint numbers from FIRST to LAST, in steps of INC.\nFIRST, INC def'
        'ault to 1.\n\n\t-w\tPad to last with leading zeros\n\t-s SEP\tString separator'
    ),
    'sha1sum': (
        'sha1sum [-c[sw]] [FILE]...\n\nPrint or check SHA1 checksums\n\n\t-c\tCheck sums against list in FILEs\n\t-'
        "s\tDon't output anything, status code shows success\n\t-w\tWarn about improperly formatted checksum lines"
    ),
    'sha256sum': (
        'sha256sum [-c[sw]] [FILE]...\n\nPrint or check SHA256 checksums\n\n\t-c\tCheck sums against list in FILEs'
        "\n\t-s\tDon't output anything, status code shows success\n\t-w\tWarn about improperly formatted checksum l"
        'ines'
    ),
    'sha512sum': (
        'sha512sum [-c[sw]] [FILE]...\n\nPrint or check SHA512 checksums\n\n\t-c\tCheck sums against list in FILEs'
        "\n\t-s\tDon't output anything, status code shows success\n\t-w\tWarn about improperly formatted checksum l"
        'ines'
    ),
    'sleep': (
        'sleep [N]...\n\nPause for a time equal to the total of the args given, where each arg can\nhave an optiona'
        'l suffix of (s)econds, (m)inutes, (h)ours, or (d)ays'
    ),
    'sort': (
        'sort [-nrugMcszbdfiokt] [-o FILE] [-k START[.OFS][OPTS][,END[.OFS][OPTS]] [-t CHAR] [FILE]...\n\nSort line'
        's of text\n\n\t-o FILE\tOutput to FILE\n\t-c\tCheck whether input is sorted\n\t-b\tIgnore leading blanks\n'
        '\t-f\tIgnore case\n\t-i\tIgnore unprintable characters\n\t-d\tDictionary order (blank or alphanumeric only'
        ')\n\t-n\tSort numbers\n\t-g\tGeneral numerical sort\n\t-M\tSort month\n\t-V\tSort version\n\t-t CHAR\tFiel'
        "d separator\n\t-k N[,M] Sort by Nth field\n\t-r\tReverse sort order\n\t-s\tStable (don't sort ties alphabe"
        'tically)\n\t-u\tSuppress duplicate lines\n\t-z\tNUL terminated input and output'
    ),
    'stat': (
        'stat [-ltf] [-c FMT] FILE...\n\nDisplay file (default) or filesystem status\n\n\t-c FMT\tUse the specified'
        ' format\n\t-f\tDisplay filesystem status\n\t-L\tFollow links\n\t-t\tTerse display\n\nFMT sequences for fil'
        'es:\n %a\tAccess rights in octal\n %A\tAccess rights in human readable form\n %b\tNumber of blocks allocat'
        'ed (see %B)\n %B\tSize in bytes of each block reported by %b\n %d\tDevice number in decimal\n %D\tDevice n'
        'umber in hex\n %f\tRaw mode in hex\n %F\tFile type\n %g\tGroup ID\n %G\tGroup name\n %h\tNumber of hard li'
        'nks\n %i\tInode number\n %n\tFile name\n %N\tFile name, with -> TARGET if symlink\n %o\tI/O block size\n %'
        's\tTotal size in bytes\n %t\tMajor device type in hex\n %T\tMinor device type in hex\n %u\tUser ID\n %U\tU'
        'ser name\n %x\tTime of last access\n %X\tTime of last access as seconds since Epoch\n %y\tTime of last mod'
        'ification\n %Y\tTime of last modification as seconds since Epoch\n %z\tTime of last change\n %Z\tTime of l'
        'ast change as seconds since Epoch\n\nFMT sequences for file systems:\n %a\tFree blocks available to non-su'
        'peruser\n %b\tTotal data blocks\n %c\tTotal file nodes\n %d\tFree file nodes\n %f\tFree blocks\n %i\tFile '
        'System ID in hex\n %l\tMaximum length of filenames\n %n\tFile name\n %s\tBlock size (for faster transfer)'
        '\n %S\tFundamental block size (for block counts)\n %t\tType in hex\n %T\tType in human readable form'
    ),
    'stty': (
        'stty [-a|g] [-F DEVICE] [SETTING]...\n\nWithout arguments, prints baud rate, line discipline,\nand deviati'
        'ons from stty sane\n\n\t-F DEVICE\tOpen device instead of stdin\n\t-a\t\tPrint all current settings in hum'
        'an-readable form\n\t-g\t\tPrint in stty-readable form\n\t[SETTING]\tSee manpage'
    ),
    'sysctl': (
        "sysctl [-enq] { -a | -p [FILE]... | [-w] [KEY[=VALUE]]... }\n\nShow/set kernel parameters\n\n\t-e\tDon't w"
        "arn about unknown keys\n\t-n\tDon't show key names\n\t-q      Quiet\n\t-a\tShow all values\n\t-p\tSet valu"
        'es from FILEs (default /etc/sysctl.conf)\n\t-w\tSet values'
    ),
    'tac': 'tac [FILE]...\n\nConcatenate FILEs and print them in reverse',
    'tail': (
        'tail [OPTIONS] [FILE]...\n\nPrint last 10 lines of FILEs (or stdin) to.\nWith more than one FILE, precede '
        'each with a filename header.\n\n\t-c [+]N[bkm]\tPrint last N bytes\n\t-n N[bkm]\tPrint last N lines\n\t-n '
        '+N[bkm]\tStart on Nth line and print the rest\n\t\t\t(b:*512 k:*1024 m:*1024^2)\n\t-q\t\tNever print heade'
        'rs\n\t-v\t\tAlways print headers\n\t-f\t\tPrint data as file grows\n\t-F\t\tSame as -f, but keep retrying'
        '\n\t-s SECONDS\tWait SECONDS between reads with -f'
    ),
    'tee': (
        'tee [-ai] [FILE]...\n\nCopy stdin to each FILE, and also to stdout\n\n\t-a\tAppend to the given FILEs, don'
        "'t overwrite\n\t-i\tIgnore interrupt signals (SIGINT)"
    ),
    'timeout': (
        'timeout [-s SIG] [-k KILL_SECS] SECS PROG ARGS\n\nRun PROG. Send SIG to it if it is not gone in SECS secon'
        'ds.\nDefault SIG: TERM.If it still exists in KILL_SECS seconds, send KILL.\n'
    ),
    'top': (
        'top [-bH] [-n COUNT] [-d SECONDS]\n\nShow a view of process activity in real time.\nRead the status of all'
        ' processes from /proc each SECONDS\nand show a screenful of them.\nKeys:\n\tN/M/P/T: sort by pid/mem/cpu/t'
        'ime\n\tR: reverse sort\n\tH: toggle threads\n\tQ,^C: exit\nOptions:\n\t-b\tBatch mode\n\t-n N\tExit after '
        'N iterations\n\t-d SEC\tDelay between updates\n\t-H\tShow threads'
    ),
    'touch': (
        "touch [-cham] [-d DATE] [-t DATE] [-r FILE] FILE...\n\nUpdate mtime of FILEs\n\n\t-c\tDon't create files\n"
        "\t-h\tDon't follow links\n\t-a\tChange only atime\n\t-m\tChange only mtime\n\t-d DT\tDate/time to use\n\t-"
        "t DT\tDate/time to use\n\t-r FILE\tUse FILE's date/time"
    ),
    'tr': (
        'tr [-cds] STRING1 [STRING2]\n\nTranslate, squeeze, or delete characters from stdin, writing to stdout\n\n'
        '\t-c\tTake complement of STRING1\n\t-d\tDelete input characters coded STRING1\n\t-s\tSqueeze multiple outp'
        'ut characters of STRING2 into one character'
    ),
    'truncate': (
        'truncate [-c] -s SIZE FILE...\n\nTruncate FILEs to SIZE\n\n\t-c\tDo not create files\n\t-s SIZE'
    ),
    'tty': "tty [-s]\n\nPrint file name of stdin's terminal\n\n\t-s\tPrint nothing, only return exit status",
    'umount': (
        'umount [-rlfda] [-t FSTYPE] FILESYSTEM|DIRECTORY\n\nUnmount filesystems\n\n\t-a\tUnmount all filesystems\n'
        '\t-r\tRemount devices read-only if mount is busy\n\t-l\tLazy umount (detach filesystem)\n\t-f\tForce umoun'
        't (i.e., unreachable NFS server)\n\t-d\tFree loop device if it has been used\n\t-t FSTYPE[,...]\tUnmount o'
        'nly these filesystem type(s)'
    ),
    'uname': (
        'uname [-amnrspvio]\n\nPrint system information\n\n\t-a\tPrint all\n\t-m\tMachine (hardware) type\n\t-n\tHo'
        'stname\n\t-r\tKernel release\n\t-s\tKernel name (default)\n\t-p\tProcessor type\n\t-v\tKernel version\n\t-'
        'i\tHardware platform\n\t-o\tOS name'
    ),
    'uniq': (
        'uniq [-cduiz] [-f,s,w N] [FILE [OUTFILE]]\n\nDiscard duplicate lines\n\n\t-c\tPrefix lines by the number o'
        'f occurrences\n\t-d\tOnly print duplicate lines\n\t-u\tOnly print unique lines\n\t-i\tIgnore case\n\t-z\tN'
        'UL terminated output\n\t-f N\tSkip first N fields\n\t-s N\tSkip first N chars (after any skipped fields)\n'
        '\t-w N\tCompare N characters in line'
    ),
    'usleep': 'usleep N\n\nPause for N microseconds',
    'wc': (
        'wc [-cmlwL] [FILE]...\n\nCount lines, words, and bytes for FILEs (or stdin)\n\n\t-c\tCount bytes\n\t-m\tCo'
        'unt characters\n\t-l\tCount newlines\n\t-w\tCount words\n\t-L\tPrint longest line length'
    ),
    'wget': (
        'wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR]\n\t[--post-data STR | --post-file FILE] [-Y o'
        'n/off]\n\t[--no-check-certificate] [-P DIR] [-U AGENT] URL...\n\nRetrieve files via HTTP or FTP\n\n\t--spi'
        "der\tOnly check URL existence: $? is 0 if exists\n\t--header STR\tAdd STR (of form 'header: value') to hea"
        'ders\n\t--post-data STR\tSend STR using POST method\n\t--post-file FILE\tSend FILE using POST method\n\t--'
        "no-check-certificate\tDon't validate the server's certificate\n\t-c\t\tContinue retrieval of aborted trans"
        'fer\n\t-q\t\tQuiet\n\t-P DIR\t\tSave to DIR (default .)\n\t-S    \t\tShow server response\n\t-O FILE\t\tSa'
        "ve to FILE ('-' for stdout)\n\t-o LOGFILE\tLog messages to FILE\n\t-U STR\t\tUse STR for User-Agent header"
        '\n\t-Y on/off\tUse proxy'
    ),
    'which': 'which [-a] COMMAND...\n\nLocate COMMAND\n\n\t-a\tShow all matches',
    'whoami': 'whoami\n\nPrint the user name associated with the current effective user id',
    'xargs': (
        'xargs [OPTIONS] [PROG ARGS]\n\nRun PROG on every item given by stdin\n\n\t-0\tNUL terminated input\n\t-a F'
        "ILE\tRead from FILE instead of stdin\n\t-r\tDon't run command if input is empty\n\t-t\tPrint the command o"
        'n stderr before execution\n\t-p\tAsk user whether to run each command\n\t-E STR,-e[STR]\tSTR stops input p'
        'rocessing\n\t-I STR\tReplace STR within PROG ARGS with input line\n\t-n N\tPass no more than N args to PRO'
        'G\n\t-s N\tPass command line of no more than N bytes\n\t-P N\tRun up to N PROGs in parallel\n\t-x\tExit if'
        ' size is exceeded'
    ),
    'yes': "yes [STRING]\n\nRepeatedly print a line with STRING, or 'y'",
}
