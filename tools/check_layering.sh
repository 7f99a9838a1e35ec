#!/bin/sh
# Internal includes must point down the layers (or stay in the same layer).
# Ranks: a file may include "dir/x.h" only when rank(dir) < rank(its dir),
# or dir is its own directory.  A public header logrep/x.h belongs to the
# layer that implements it (logrep/log.h to log/, logrep/partition.h to
# replica/, logrep/node.h and logrep/groups.h to node/),
# so it is ranked like "x/", in quotes or angle brackets; logrep.h itself is
# the base API.  Files in lib/ and the public headers are checked.
rank() {
    case "$1" in
        base) echo 0 ;; codec) echo 1 ;; storage|transport) echo 2 ;;
        log|proto) echo 3 ;; replica) echo 4 ;; controller|group|quorum) echo 5 ;;
        node) echo 6 ;; driver) echo 7 ;; sim) echo 8 ;; *) echo 99 ;;
    esac
}
# Prints the layer each include of $1 points at, one a line.
includes() {
    sed -n -e 's/^#[ \t]*include[ \t]*["<]logrep\/\([a-z_]*\)\.h[">].*/\1/p' \
           -e 's/^#[ \t]*include[ \t]*"\([a-z_]*\)\/[^"]*".*/\1/p' "$1" |
        grep -v '^logrep$' | sed -e 's/^groups$/node/' -e 's/^inproc$/node/' -e 's/^partition$/replica/'
}
status=0
for f in lib/*/*.c lib/*/*.h include/logrep/*.h; do
    [ -f "$f" ] || continue
    case "$f" in
        include/logrep/groups.h|include/logrep/inproc.h) dir=node ;; # implemented by lib/node
        include/logrep/partition.h) dir=replica ;; # implemented by lib/replica
        include/logrep/*) dir=$(basename "$f" .h) ;;
        *) dir=$(basename "$(dirname "$f")") ;;
    esac
    r=$(rank "$dir")
    if [ "$r" = 99 ]; then
        echo "layering: $f is in no known layer ($dir)"
        status=1
        continue
    fi
    for inc in $(includes "$f"); do
        [ "$inc" = "$dir" ] && continue
        ri=$(rank "$inc")
        if [ "$ri" -ge "$r" ]; then
            echo "layering: $f includes $inc/ (rank $ri >= $r)"
            status=1
        fi
    done
done
[ $status = 0 ] && echo "layering: ok"
exit $status
