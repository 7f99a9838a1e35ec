/* The metadata image as the records of a snapshot, and back.
 *
 * A snapshot of `__cluster_metadata` at end offset E holds the fewest
 * metadata records that rebuild the image every record below E built
 * (docs/quorum.md, "Snapshots"):
 *
 *   RegisterBrokerRecord v3  per broker, ascending id: incarnation, epoch,
 *                            endpoints, rack, fenced, in controlled shutdown
 *   ConfigRecord v0          per non-topic override (cluster, broker, ...),
 *                            in arrival order
 *   per topic, in creation order:
 *     TopicRecord v0
 *     PartitionRecord v2     per partition in id order: replicas, ISR,
 *                            leader, epochs, recovery state, ELR,
 *                            LastKnownElr
 *     ConfigRecord v0        per override, in arrival order
 *   ProducerIdsRecord v0     when a producer id was handed out (broker id
 *                            and epoch -1: the image does not keep them)
 *
 * Loading applies them to an empty image made with the same conf (the
 * defaults min ISR, unclean election and ELR come from the conf, never from
 * records). As Kafka does, every snapshot record counts as applied at the
 * snapshot's last contained offset E - 1: a broker's register_offset after
 * a load is E - 1 (>= the true one, so a broker is counted caught up only
 * once it has everything the snapshot holds); everything else is identical
 * under every query, and the next offset is E.
 *
 * Pure functions: no I/O; memory from the image's allocator. */
#ifndef LR_CONTROLLER_MD_SNAPSHOT_H
#define LR_CONTROLLER_MD_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "controller/metadata.h"

/* One encoded record; the bytes are valid during the call. A non-zero
 * return stops the walk and is returned. */
typedef int (*lr_md_snap_fn)(void *ctx, const uint8_t *rec, size_t len);

/* Hands the records that rebuild img to fn, in the order above, one at a
 * time (one record's bytes in memory at once). The snapshot's end offset
 * is lr_md_next_offset(img). *n_records (may be NULL) gets the count.
 * 0, fn's value, LOGREP_ERR__NOMEM, or LOGREP_ERR__INVALID_ARG for a value
 * no record can carry (a string over 32767 bytes applied by hand). */
int lr_md_snapshot_records(const lr_md_image *img, lr_md_snap_fn fn, void *ctx,
                           int64_t *n_records);

/* Applies one record of a snapshot whose end offset is `end` (> 0) to img,
 * which started empty: applied at offset end - 1, and the next offset is
 * `end` afterwards. A snapshot without records: lr_md_set_next_offset(img,
 * end). All or nothing, as lr_md_apply: 0, LOGREP_ERR__CORRUPT (a record
 * that does not decode or apply, end <= 0), LOGREP_ERR__UNSUPPORTED,
 * LOGREP_ERR__NOMEM. On error throw the image away: the snapshot is not
 * to be trusted. */
int lr_md_snapshot_apply(lr_md_image *img, int64_t end, const uint8_t *rec, size_t len);

#endif
