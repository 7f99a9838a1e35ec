/*
 * liblogrep — Kafka wire protocol: bytes in, bytes out, no sockets.
 *
 * Every request and response body is described once in a schema table
 * (field name, type, versions, nullable versions, tagged versions and tag,
 * default), and one table-driven codec decodes and encodes every API at
 * every version in logrep_proto_api_versions(). A decoded message is a tree
 * of structs whose fields are addressed by index; field indices are
 * stable for an API across versions, so look them up once by name with
 * logrep_struct_field() and cache them.
 *
 * Zero copy: decoded strings, bytes, uuids and record sets point into the
 * input frame, which must stay alive and unchanged while the message is
 * read (until the next decode/init/free of that message). Values given to
 * the setters are borrowed the same way until the message is encoded, unless
 * the *_copy variant is used. Encoding can produce a list of segments in
 * which each large record set is its own segment, either memory the host
 * passed in or a (file, position, length) range to send with sendfile().
 *
 * Threads: a logrep_msg is used by one thread at a time; the schema tables
 * are read-only, so distinct messages are independent.
 *
 * Untrusted input: every length and count is checked against the bytes
 * left and against "socket.request.max.bytes" before anything is allocated;
 * array counts are bounded by the bytes present. Malformed input returns
 * LOGREP_ERR__CORRUPT and never reads out of bounds; logrep_msg_errmsg()
 * says which field failed and where.
 */
#ifndef LOGREP_PROTO_H
#define LOGREP_PROTO_H

#include <logrep.h>

#ifdef __cplusplus
extern "C" {
#endif

/** API keys implemented by the codec (Kafka's numbers). */
enum {
    LOGREP_API_PRODUCE = 0,
    LOGREP_API_FETCH = 1,
    LOGREP_API_LIST_OFFSETS = 2,
    LOGREP_API_METADATA = 3,
    LOGREP_API_OFFSET_COMMIT = 8,
    LOGREP_API_OFFSET_FETCH = 9,
    LOGREP_API_FIND_COORDINATOR = 10,
    LOGREP_API_JOIN_GROUP = 11,
    LOGREP_API_HEARTBEAT = 12,
    LOGREP_API_LEAVE_GROUP = 13,
    LOGREP_API_SYNC_GROUP = 14,
    LOGREP_API_DESCRIBE_GROUPS = 15,
    LOGREP_API_LIST_GROUPS = 16,
    LOGREP_API_API_VERSIONS = 18,
    LOGREP_API_CREATE_TOPICS = 19,
    LOGREP_API_DELETE_TOPICS = 20,
    LOGREP_API_DELETE_RECORDS = 21,
    LOGREP_API_INIT_PRODUCER_ID = 22,
    LOGREP_API_OFFSET_FOR_LEADER_EPOCH = 23,
    LOGREP_API_ADD_PARTITIONS_TO_TXN = 24,
    LOGREP_API_ADD_OFFSETS_TO_TXN = 25,
    LOGREP_API_END_TXN = 26,
    LOGREP_API_WRITE_TXN_MARKERS = 27,
    LOGREP_API_TXN_OFFSET_COMMIT = 28,
    LOGREP_API_DESCRIBE_CONFIGS = 32,
    LOGREP_API_ALTER_CONFIGS = 33,
    LOGREP_API_DELETE_GROUPS = 42,
    LOGREP_API_INCREMENTAL_ALTER_CONFIGS = 44,
    LOGREP_API_OFFSET_DELETE = 47,
    LOGREP_API_VOTE = 52,
    LOGREP_API_BEGIN_QUORUM_EPOCH = 53,
    LOGREP_API_END_QUORUM_EPOCH = 54,
    LOGREP_API_DESCRIBE_QUORUM = 55,
    LOGREP_API_ALTER_PARTITION = 56,
    LOGREP_API_FETCH_SNAPSHOT = 59,
    LOGREP_API_BROKER_REGISTRATION = 62,
    LOGREP_API_BROKER_HEARTBEAT = 63,
    LOGREP_API_ALLOCATE_PRODUCER_IDS = 67
};

/** Field types of the schema. */
enum {
    LOGREP_FT_BOOL = 1,
    LOGREP_FT_INT8 = 2,
    LOGREP_FT_INT16 = 3,
    LOGREP_FT_UINT16 = 4,
    LOGREP_FT_INT32 = 5,
    LOGREP_FT_UINT32 = 6,
    LOGREP_FT_INT64 = 7,
    LOGREP_FT_FLOAT64 = 8,
    LOGREP_FT_UUID = 9,
    LOGREP_FT_STRING = 10,
    LOGREP_FT_BYTES = 11,
    LOGREP_FT_RECORDS = 12,
    LOGREP_FT_STRUCT = 13,
    LOGREP_FT_ARRAY = 14
};

/* ------------------------------------------------------------------------
 * APIs and versions
 * ---------------------------------------------------------------------- */

/** The versions of one API the codec implements. Requests and responses
 *  share the range; versions >= flexible_version use compact encodings and
 *  tagged fields (flexible_version is INT16_MAX when none is flexible). */
typedef struct logrep_api_range {
    int16_t api_key;
    int16_t min_version;
    int16_t max_version;
    int16_t flexible_version;
} logrep_api_range;

/** The implemented APIs, sorted by key: a static table of *n entries, so a
 *  server advertises exactly what it can decode. Thread-safe. */
LOGREP_API const logrep_api_range *logrep_proto_api_versions(size_t *n);

/** The range of one API, or NULL when the key is not implemented. */
LOGREP_API const logrep_api_range *logrep_proto_api(int api_key);

/** Kafka's name of an API ("Produce", "Fetch", ...), or NULL. Static. */
LOGREP_API const char *logrep_proto_api_name(int api_key);

/* ------------------------------------------------------------------------
 * Framing
 * ---------------------------------------------------------------------- */

/** Finds the frame at the start of a byte stream: a 4-byte big-endian size
 *  followed by that many bytes. Call it on whatever has been received so
 *  far; it never reads past len.
 *  @param max_bytes the largest size accepted (socket.request.max.bytes);
 *         <= 0 means INT32_MAX.
 *  @param frame_len receives the frame length including the 4-byte prefix
 *         on LOGREP_OK, and on LOGREP_ERR__AGAIN the total length needed
 *         when known (else 4).
 *  @return LOGREP_OK (a whole frame is at buf); LOGREP_ERR__AGAIN (read
 *  more); LOGREP_ERR__LIMIT (size above max_bytes: close the connection);
 *  LOGREP_ERR__CORRUPT (negative size); LOGREP_ERR__INVALID_ARG. */
LOGREP_API logrep_err logrep_proto_frame(const void *buf, size_t len,
                                         int64_t max_bytes, size_t *frame_len);

/* ------------------------------------------------------------------------
 * Messages
 * ---------------------------------------------------------------------- */

/** One request or response: header and body as a tree of structs, held in a
 *  per-message arena. Reusable: each decode/init starts afresh and keeps
 *  the memory, so a pooled message does not allocate in the steady state. */
typedef struct logrep_msg logrep_msg;

/** A struct inside a message (header, body, array element, struct field).
 *  Valid until the next decode, init or free of its message. */
typedef struct logrep_struct logrep_struct;

/** New empty message. conf may be NULL; its allocator and
 *  socket.request.max.bytes are copied.
 *  @return LOGREP_OK, LOGREP_ERR__NOMEM, LOGREP_ERR__INVALID_ARG. */
LOGREP_API logrep_err logrep_msg_new(const logrep_conf *conf, logrep_msg **out);
LOGREP_API void logrep_msg_free(logrep_msg *m);

/** Decodes one request frame (4-byte size prefix included, exactly len
 *  bytes; see logrep_proto_frame). The frame is borrowed: values point
 *  into it.
 *  @return
 *  - LOGREP_OK;
 *  - LOGREP_ERR_UNSUPPORTED_VERSION: known API, version outside its range.
 *    The header (api key, version, correlation id, client id) was read.
 *    For ApiVersions answer with logrep_msg_init_response_to(), which
 *    builds Kafka's v0 error reply; for other APIs close the connection;
 *  - LOGREP_ERR__UNSUPPORTED: unknown API key (the api key, version and
 *    correlation id were read);
 *  - LOGREP_ERR__CORRUPT: truncated or malformed (bad prefix, length,
 *    count, null in a non-nullable field, trailing bytes);
 *  - LOGREP_ERR__LIMIT: larger than socket.request.max.bytes;
 *  - LOGREP_ERR__NOMEM, LOGREP_ERR__INVALID_ARG.
 *  On failure the message holds no body (logrep_msg_root() is NULL). */
LOGREP_API logrep_err logrep_msg_decode_request(logrep_msg *m, const void *frame, size_t len);

/** Decodes one response frame of the given API and version (responses do
 *  not carry them). Returns as logrep_msg_decode_request, with
 *  LOGREP_ERR__UNSUPPORTED for an unknown key or version. A broker that
 *  refuses an ApiVersions version answers in the v0 format: when decoding
 *  such a reply at the version sent fails, decode it again at version 0
 *  and read ErrorCode, as Kafka's clients do. */
LOGREP_API logrep_err logrep_msg_decode_response(logrep_msg *m, int api_key, int version,
                                                 const void *frame, size_t len);

/** Starts a request with every field at its default. client_id (may be
 *  NULL: null) is copied.
 *  @return LOGREP_OK, LOGREP_ERR__UNSUPPORTED (key or version),
 *  LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_msg_init_request(logrep_msg *m, int api_key, int version,
                                              int32_t correlation_id, const char *client_id);

/** Starts a response with every field at its default.
 *  @return as logrep_msg_init_request. */
LOGREP_API logrep_err logrep_msg_init_response(logrep_msg *m, int api_key, int version,
                                               int32_t correlation_id);

/** Starts the response to a decoded request: same API, version and
 *  correlation id. For an ApiVersions request of an unsupported version it
 *  builds Kafka's fallback instead: a v0 response with ErrorCode 35
 *  (UNSUPPORTED_VERSION) and ApiKeys filled from
 *  logrep_proto_api_versions(); that reply is complete as is.
 *  `m` and `req` must differ.
 *  @return LOGREP_OK, LOGREP_ERR__MISUSE (req holds no request header),
 *  LOGREP_ERR__UNSUPPORTED, LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_msg_init_response_to(logrep_msg *m, const logrep_msg *req);

/** Sets the ApiKeys array of an ApiVersions response to every implemented
 *  range (logrep_proto_api_versions()).
 *  @return LOGREP_OK, LOGREP_ERR__MISUSE (not an ApiVersions response),
 *  LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_msg_fill_api_versions(logrep_msg *m);

/** Encodes the message as a frame (size prefix, header, body) split into
 *  segments: memory owned by the message, borrowed record sets of 1 KiB
 *  or more, and file ranges. *segs is valid until the next encode, decode,
 *  init or free of the message. *total (may be NULL) receives the frame
 *  size, prefix included.
 *  @return LOGREP_OK; LOGREP_ERR__INVALID_ARG (a value the version cannot
 *  carry: null in a non-nullable field, a string over 32767 bytes; the
 *  reason is in logrep_msg_errmsg); LOGREP_ERR__LIMIT (frame over 2 GiB);
 *  LOGREP_ERR__MISUSE (no message); LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_msg_encode(logrep_msg *m, const logrep_seg **segs,
                                        size_t *nsegs, uint64_t *total);

/** Encodes into one contiguous buffer owned by the message (record sets are
 *  copied), valid until the next encode, decode, init or free.
 *  @return as logrep_msg_encode, plus LOGREP_ERR__UNSUPPORTED when a record
 *  set is a file range. */
LOGREP_API logrep_err logrep_msg_encode_flat(logrep_msg *m, const uint8_t **out, size_t *len);

LOGREP_API int logrep_msg_api_key(const logrep_msg *m);     /**< -1 when empty */
LOGREP_API int logrep_msg_version(const logrep_msg *m);     /**< -1 when empty */
LOGREP_API int logrep_msg_is_response(const logrep_msg *m); /**< 1 or 0 */
LOGREP_API int32_t logrep_msg_correlation_id(const logrep_msg *m);
/** Client id of a request header: *p and *len (-1: null). */
LOGREP_API logrep_err logrep_msg_client_id(const logrep_msg *m, const uint8_t **p, int32_t *len);
/** The header as a struct (fields of Kafka's RequestHeader or ResponseHeader),
 *  or NULL when empty. */
LOGREP_API logrep_struct *logrep_msg_header(logrep_msg *m);
/** The body, or NULL when no body was decoded or initialised. */
LOGREP_API logrep_struct *logrep_msg_root(logrep_msg *m);
/** Why the last call on the message failed; NUL-terminated, owned by the
 *  message, "" after success. */
LOGREP_API const char *logrep_msg_errmsg(const logrep_msg *m);

/* ------------------------------------------------------------------------
 * Structs. Field indices are positions in the struct's schema. Getters never
 * fail: a NULL struct, bad index or type mismatch returns 0 / NULL, and a
 * field absent at the message's version reads as its default. Setters
 * return LOGREP_ERR__INVALID_ARG for a bad index or type; setting a field
 * absent at the version is allowed and it is not encoded.
 * ---------------------------------------------------------------------- */

/** Index of the field `name` (Kafka's spelling, e.g. "PartitionIndex"), or
 *  -1. Stable across versions of the API. */
LOGREP_API int logrep_struct_field(const logrep_struct *n, const char *name);
LOGREP_API int logrep_struct_field_count(const logrep_struct *n);
/** Name of the struct type, e.g. "FetchPartition". */
LOGREP_API const char *logrep_struct_type_name(const logrep_struct *n);
LOGREP_API const char *logrep_struct_field_name(const logrep_struct *n, int field);
/** LOGREP_FT_* of the field, or 0. For arrays, *elem (may be NULL)
 *  receives the element type. */
LOGREP_API int logrep_struct_field_type(const logrep_struct *n, int field, int *elem);
/** 1 when the field exists at the message's version (tagged or not). */
LOGREP_API int logrep_struct_has(const logrep_struct *n, int field);
/** 1 when a tagged field was decoded or set (it is then encoded). */
LOGREP_API int logrep_struct_tag_present(const logrep_struct *n, int field);

/** Booleans and integers of every width. */
LOGREP_API int64_t logrep_struct_int(const logrep_struct *n, int field);
LOGREP_API double logrep_struct_float(const logrep_struct *n, int field);
/** 16 bytes of a uuid field (static zeros by default), or NULL. */
LOGREP_API const uint8_t *logrep_struct_uuid(const logrep_struct *n, int field);
/** String, bytes or in-memory records: *p and *len; *len == -1 means null.
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG (type), LOGREP_ERR__UNSUPPORTED
 *  (records set as a file range). */
LOGREP_API logrep_err logrep_struct_bytes(const logrep_struct *n, int field, const uint8_t **p,
                                        int32_t *len);
/** 1 when a string, bytes, records, array or struct field is null. */
LOGREP_API int logrep_struct_is_null(const logrep_struct *n, int field);
/** Element count of an array field; -1 when null. */
LOGREP_API int32_t logrep_struct_count(const logrep_struct *n, int field);
/** i-th element of an array of structs. */
LOGREP_API logrep_struct *logrep_struct_elem(const logrep_struct *n, int field, int32_t i);
/** i-th element of an array of integers/booleans. */
LOGREP_API int64_t logrep_struct_elem_int(const logrep_struct *n, int field, int32_t i);
/** i-th element of an array of strings, bytes or uuids (len 16). */
LOGREP_API logrep_err logrep_struct_elem_bytes(const logrep_struct *n, int field, int32_t i,
                                             const uint8_t **p, int32_t *len);
/** A struct-typed field (not an array). Returns a struct holding defaults when
 *  the field was not decoded or set; NULL only when out of memory. */
LOGREP_API logrep_struct *logrep_struct_struct(logrep_struct *n, int field);

/** Integer, boolean and float setters; a tagged field becomes present. */
LOGREP_API logrep_err logrep_struct_set_int(logrep_struct *n, int field, int64_t v);
LOGREP_API logrep_err logrep_struct_set_float(logrep_struct *n, int field, double v);
/** String or bytes, borrowed until encoded. p NULL with len -1 sets null. */
LOGREP_API logrep_err logrep_struct_set_bytes(logrep_struct *n, int field, const void *p, int32_t len);
/** As logrep_struct_set_bytes but copied into the message. */
LOGREP_API logrep_err logrep_struct_set_bytes_copy(logrep_struct *n, int field, const void *p,
                                                 int32_t len);
/** Copies 16 bytes. */
LOGREP_API logrep_err logrep_struct_set_uuid(logrep_struct *n, int field, const uint8_t uuid[16]);
/** Record set in memory, borrowed until encoded (zero copy); p NULL with len
 *  -1 sets null. */
LOGREP_API logrep_err logrep_struct_set_records(logrep_struct *n, int field, const void *p,
                                              int32_t len);
/** Record set as a range of a host file, emitted as a file segment by
 *  logrep_msg_encode(). file >= 0, pos >= 0, 0 <= len <= INT32_MAX. */
LOGREP_API logrep_err logrep_struct_set_records_file(logrep_struct *n, int field, int64_t file,
                                                   int64_t pos, int64_t len);
/** Sets a nullable string, bytes, records or array field to null. */
LOGREP_API logrep_err logrep_struct_set_null(logrep_struct *n, int field);
/** Replaces an array with `count` elements at their defaults (-1: null).
 *  @return LOGREP_OK, LOGREP_ERR__INVALID_ARG, LOGREP_ERR__LIMIT (count
 *  over socket.request.max.bytes), LOGREP_ERR__NOMEM. */
LOGREP_API logrep_err logrep_struct_set_count(logrep_struct *n, int field, int32_t count);
LOGREP_API logrep_err logrep_struct_set_elem_int(logrep_struct *n, int field, int32_t i, int64_t v);
/** String/bytes element (borrowed), or a uuid element with len 16 (copied). */
LOGREP_API logrep_err logrep_struct_set_elem_bytes(logrep_struct *n, int field, int32_t i,
                                                 const void *p, int32_t len);
/** A struct-typed field made present for writing (tagged ones are then
 *  encoded); *out receives it. */
LOGREP_API logrep_err logrep_struct_set_struct(logrep_struct *n, int field, logrep_struct **out);

/** Unknown tagged fields kept from decoding, re-encoded in tag order. */
LOGREP_API uint32_t logrep_struct_unknown_tag_count(const logrep_struct *n);
LOGREP_API logrep_err logrep_struct_unknown_tag(const logrep_struct *n, uint32_t i, uint32_t *tag,
                                              const uint8_t **p, uint32_t *len);
/** Drops the unknown tagged fields of a struct (they are then not encoded). */
LOGREP_API void logrep_struct_clear_unknown_tags(logrep_struct *n);

#ifdef __cplusplus
}
#endif

#endif /* LOGREP_PROTO_H */
