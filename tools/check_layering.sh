#!/bin/sh
# Internal includes must point down the layers (or stay in the same layer).
# Ranks: a file may include "dir/x.h" only when rank(dir) < rank(its dir),
# or dir is its own directory.
rank() {
    case "$1" in
        base) echo 0 ;; codec) echo 1 ;; storage|transport) echo 2 ;;
        log|proto) echo 3 ;; replica) echo 4 ;; controller|group) echo 5 ;;
        node) echo 6 ;; driver) echo 7 ;; sim) echo 8 ;; *) echo 99 ;;
    esac
}
status=0
for f in lib/*/*.c lib/*/*.h; do
    [ -f "$f" ] || continue
    dir=$(basename "$(dirname "$f")")
    r=$(rank "$dir")
    for inc in $(sed -n 's/^#[ \t]*include[ \t]*"\([a-z_]*\)\/[^"]*".*/\1/p' "$f"); do
        [ "$inc" = "$dir" ] && continue
        [ "$inc" = "logrep" ] && continue  # public headers
        ri=$(rank "$inc")
        if [ "$ri" -ge "$r" ]; then
            echo "layering: $f includes $inc/ (rank $ri >= $r)"
            status=1
        fi
    done
done
[ $status = 0 ] && echo "layering: ok"
exit $status
