# Reads ThreadSanitizer output and decides, report by report, whether it is the known false
# positive of Synchronization.Mutex on Linux (see README.md here): both racing accesses run inside
# a `withLock` closure, i.e. the first frame under the access that has a source line is a line of
# ours calling `withLock`. Mutex locks with a futex inside libswiftSynchronization, which is not
# instrumented, so TSan never sees the lock's happens-before edge.
#
# A stack starts at "… access … by thread" or "[Previous] read/write of size … by thread" (TSan
# capitalises the first word only). Prints every other report in full and exits 1 if there is any; prints a one-line count of the
# known ones. Usage: awk -f tsan-filter.awk test-output.log
function source_line(file, line,    text, n, i) {
    if ((file, line) in cache) return cache[file, line]
    text = ""; i = 0
    while ((getline n < file) > 0) { if (++i == line) { text = n; break } }
    close(file)
    cache[file, line] = text
    return text
}
function flush_report(    i, known) {
    if (!in_report) return
    known = (stacks == 2 && locked == 2)
    if (known) { known_count++ }
    else { unknown_count++; for (i = 1; i <= nlines; i++) print lines[i] > "/dev/stderr" }
    in_report = 0
}
/^WARNING: ThreadSanitizer:/ { flush_report(); in_report = 1; nlines = 0; stacks = 0; locked = 0; state = "" }
in_report {
    lines[++nlines] = $0
    if ($0 ~ /access .* by thread|([Rr]ead|[Ww]rite|[Aa]tomic[^ ]*) of size .* by thread|access of Swift variable/) {
        stacks++; state = "stack"; decided = 0; next
    }
    if (state == "stack" && $0 ~ /^    #[1-3] / && !decided) {
        if (match($0, /\/[^ ]*\.swift:[0-9]+:[0-9]+/)) {
            split(substr($0, RSTART, RLENGTH), parts, ":")
            if (source_line(parts[1], parts[2] + 0) ~ /withLock/) locked++
            decided = 1
        }
    }
    if ($0 ~ /^$/) state = ""
    if ($0 ~ /^SUMMARY: ThreadSanitizer/) flush_report()
}
END {
    flush_report()
    printf "ThreadSanitizer: %d report(s) inside Mutex.withLock closures (known false positives), %d other(s)\n", known_count, unknown_count
    exit unknown_count > 0 ? 1 : 0
}
