/* A small blocking client for the Kafka wire protocol: one TCP connection,
 * one request at a time, every wait bounded by the connection's timeout.
 * Requests and responses are liblogrep codec messages. */
#ifndef LOGREP_TOOL_WIRE_H
#define LOGREP_TOOL_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <logrep/proto.h>
#include "proto/fields.h"

/* Responses larger than this are refused (the frame is not read). */
#define WIRE_MAX_FRAME (64 << 20)
#define WIRE_MAX_API 128

typedef struct wire_conn {
    int fd;
    int timeout_ms;
    int32_t corr;
    char addr[300]; /* host:port, for messages */
    /* The broker's versions per API key from ApiVersions; max -1: none. */
    int16_t vmin[WIRE_MAX_API], vmax[WIRE_MAX_API];
    uint8_t *rbuf; /* the last response frame, rlen bytes */
    size_t rcap, rlen;
    logrep_msg *req, *resp;
    char err[512]; /* why the last call failed */
} wire_conn;

/* Splits "host:port" ("[v6]:port" too). 0, or -1 when malformed. */
int wire_parse_addr(const char *s, char *host, size_t hostcap, int *port);

/* Connects (within timeout_ms) and asks ApiVersions. 0, or -1 with the
 * reason in c->err; wire_close is needed either way. */
int wire_open(wire_conn *c, const char *host, int port, int timeout_ms);
void wire_close(wire_conn *c);

/* The highest version of api both sides speak, at most `cap`, and at
 * least `floor`; -1 when there is none. */
int wire_version(const wire_conn *c, int api, int floor, int cap);

/* Starts a request in c->req and returns its body (NULL: c->err says). */
logrep_struct *wire_begin(wire_conn *c, int api, int version);

/* Sends c->req, reads the response frame within the timeout and decodes
 * it; returns its body (valid until the next call), or NULL with c->err
 * set (I/O, timeout, oversized or undecodable response). */
logrep_struct *wire_call(wire_conn *c);

/* A string field of a struct, or "" and 0 when absent or null: never
 * NUL-terminated, len bytes. */
const char *wire_str(const logrep_struct *s, lr_fname f, int32_t *len);

#endif
