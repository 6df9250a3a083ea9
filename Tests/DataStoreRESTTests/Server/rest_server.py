#!/usr/bin/env python3
"""An in-memory REST collection server for the DataStoreREST tests. Python 3 standard library only.

Serves any number of collections, each at a one-segment path (``/messages``, ``/c-1234``), created
on first use, with exactly the mapping of docs/rest.md:

    GET    /{c}?params      query: conditions, _limit, _offset, _sort  -> 200 [objects]
    GET    /{c}/all         every object                               -> 200 [objects]
    GET    /{c}/{id}        one object                                 -> 200 {object} | 404
    PUT    /{c}/{id}        replace or insert, JSON body               -> 200/201 {object}
    POST   /{c}             insert, JSON body; id generated if absent  -> 201 {object} | 409
    DELETE /{c}/{id}        remove                                     -> 200 {removed object} | 404
    PATCH  /{c}/{id}        {"set", "unset", "increment", "append", "remove"} by field path
                                                                      -> 200 {updated object} | 404 | 400 | 422
    DELETE /{c}?params      remove every match                         -> 200 {"removed": n}
    POST   /{c}/_reset      empty one collection                       -> 204
    POST   /_reset          empty every collection                     -> 204

Query parameters follow docs/queries.md ("Matching"): a key is "field" or "field OP" with OP one
of = == != < <= > >= in; a missing field matches nothing (not even !=); numbers compare across
int and float; range operators hold only within one type class; an array field matches when any
element does. Values arrive as untyped text, so each is read in the type of the stored value it is
compared with ("12" is the string "12" against a string, the number 12 against a number); the
value of `in` is a JSON array. Bytes are JSON objects {"$base64": "..."}.

Test helpers:

    /faults/500/...              500 with a text body
    /faults/big500/...           500 with a 4 KiB body of multi-byte characters
    /faults/badjson/...          200 with a truncated JSON body
    /faults/object-not-array/... 200 with a JSON object
    /faults/array-not-object/... 200 with a JSON array
    /faults/not-objects/...      200 with a JSON array of scalars
    /faults/scalar/...           200 with a JSON string
    /faults/empty/...            200 with an empty body
    /faults/huge-number/...      200 with an integer beyond Int64 (UInt64.max)
    /faults/hang/...             sends nothing for 30 seconds (far longer than the client timeout)
    /faults/404/...              404 with a JSON body
    /faults/drop-once/<token>    the first request with the token is cut off by a reset, unanswered;
                                 later ones get 200 {"id": "1", "attempts": n}
    /faults/attempts/<token>     200 {"attempts": n}: how many requests drop-once got with the token
    /_echo/...                   200 {"method", "path", "headers", "body"} describing the request
    GET /_closed-port            200 {"port": n}: a loopback port that was just bound and released

Binds 127.0.0.1 on an ephemeral port, prints the port as the first line of stdout, and exits when
its stdin closes (so it never outlives the test process that started it).
"""

import base64
import json
import math
import os
import re
import socket
import struct
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, unquote

ID_KEY = "id"
OPERATORS = {"=": "==", "==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=", "in": "in"}
OPTIONS = {"_limit", "_offset", "_sort"}


class Refused(Exception):
    """A change that does not fit the stored document: 422."""


def field_path(field):
    """The names of a field path: dots separate them, a backslash escapes a dot or a backslash."""
    names, current, escaping = [], "", False
    for character in field:
        if escaping:
            if character not in ".\\":
                raise BadRequest(f"field {field!r} has an escape other than \\. or \\\\")
            current += character
            escaping = False
        elif character == "\\":
            escaping = True
        elif character == ".":
            names.append(current)
            current = ""
        else:
            current += character
    if escaping or "" in names + [current]:
        raise BadRequest(f"field {field!r} is not a field path")
    return names + [current]


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def apply_change(document, path, kind, value, field):
    """Applies one change of a PATCH at `path` in `document`, as FieldUpdate does."""
    for name in path[:-1]:
        inner = document.get(name)
        if inner is None and name not in document:
            if kind in ("unset", "remove"):
                return
            inner = document[name] = {}
        elif not isinstance(inner, dict):
            if kind == "unset":
                return
            raise Refused(f"the change of field {field} passes through {name}, which is not an object")
        document = inner
    name = path[-1]
    if kind == "set":
        document[name] = value
    elif kind == "unset":
        document.pop(name, None)
    elif kind == "increment":
        stored = document.get(name, 0)
        if not is_number(value) or not is_number(stored):
            raise Refused(f"field {field} cannot be incremented: it or the amount is not a number")
        total = stored + value
        if isinstance(total, int) and not -2**63 <= total < 2**63:
            raise Refused(f"field {field} would pass the largest integer")
        document[name] = total
    elif kind == "append":
        stored = document.get(name, [])
        if not isinstance(stored, list) or not isinstance(value, list):
            raise Refused(f"field {field} is not an array to append to")
        document[name] = stored + value
    elif kind == "remove":
        if name not in document:
            return
        stored = document[name]
        if not isinstance(stored, list) or not isinstance(value, list):
            raise Refused(f"field {field} is not an array to remove elements from")
        # Equal as the store's values are: of one type and one value (1 is not 1.0).
        removed = {json.dumps(v, sort_keys=True) for v in value}
        document[name] = [element for element in stored if json.dumps(element, sort_keys=True) not in removed]


class BadRequest(Exception):
    """A malformed request: answered with 400 and the message."""


# ----------------------------------------------------------------------------------------------
# Values: the total order of docs/encoding.md
# null < false < true < numbers < strings < bytes < arrays < objects


def is_bytes(value):
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get("$base64"), str)


def decoded_bytes(value):
    try:
        return base64.b64decode(value["$base64"], validate=True)
    except ValueError:
        return value["$base64"].encode()


def rank(value):
    if value is None:
        return 0
    if isinstance(value, bool):
        return 1
    if isinstance(value, (int, float)):
        return 2
    if isinstance(value, str):
        return 3
    if is_bytes(value):
        return 4
    if isinstance(value, list):
        return 5
    return 6


def sign(x):
    return (x > 0) - (x < 0)


def compare(a, b):
    """-1, 0 or 1: the total order. Python compares int and float by exact value; str by code
    point, which is the order of UTF-8 bytes."""
    ra, rb = rank(a), rank(b)
    if ra != rb:
        return -1 if ra < rb else 1
    if ra == 0:
        return 0
    if ra == 2:
        if isinstance(a, float) and math.isnan(a):
            return 0 if isinstance(b, float) and math.isnan(b) else -1
        if isinstance(b, float) and math.isnan(b):
            return 1
        return sign((a > b) - (a < b))
    if ra in (1, 3):
        return (a > b) - (a < b)
    if ra == 4:
        x, y = decoded_bytes(a), decoded_bytes(b)
        return (x > y) - (x < y)
    if ra == 5:
        for p, q in zip(a, b):
            order = compare(p, q)
            if order:
                return order
        return (len(a) > len(b)) - (len(a) < len(b))
    x = sorted(a.items(), key=lambda item: item[0].encode())
    y = sorted(b.items(), key=lambda item: item[0].encode())
    for (n, v), (m, w) in zip(x, y):
        if n != m:
            return -1 if n.encode() < m.encode() else 1
        order = compare(v, w)
        if order:
            return order
    return (len(x) > len(y)) - (len(x) < len(y))


NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")
NOT_IN_CLASS = object()


def interpret(raw, like):
    """The query text `raw` read as a value of `like`'s type class, or NOT_IN_CLASS."""
    r = rank(like)
    if r == 0:
        return None if raw == "null" else NOT_IN_CLASS
    if r == 1:
        return {"true": True, "false": False}.get(raw, NOT_IN_CLASS)
    if r == 2:
        if not NUMBER.fullmatch(raw):
            return NOT_IN_CLASS
        if re.fullmatch(r"-?[0-9]+", raw):
            return int(raw)
        number = float(raw)
        return number if math.isfinite(number) else NOT_IN_CLASS
    if r == 3:
        return raw
    try:
        value = json.loads(raw)
    except ValueError:
        return NOT_IN_CLASS
    return value if rank(value) == r else NOT_IN_CLASS


def orderable(value):
    return rank(value) in (1, 2, 3, 4)


def equals_typed(field_value, target):
    """== with an array field as a multi-value (docs/queries.md)."""
    if isinstance(field_value, list) and not isinstance(target, list):
        return any(compare(element, target) == 0 for element in field_value)
    return compare(field_value, target) == 0


def equals_raw(field_value, raw):
    if isinstance(field_value, list):
        whole = interpret(raw, field_value)
        if whole is not NOT_IN_CLASS:
            return compare(field_value, whole) == 0
        return any(equals_raw(element, raw) for element in field_value if not isinstance(element, list))
    target = interpret(raw, field_value)
    return target is not NOT_IN_CLASS and compare(field_value, target) == 0


def range_raw(field_value, op, raw):
    if isinstance(field_value, list):
        return any(range_raw(element, op, raw) for element in field_value if not isinstance(element, list))
    if not orderable(field_value):
        return False
    target = interpret(raw, field_value)
    if target is NOT_IN_CLASS:
        return False
    order = compare(field_value, target)
    return {"<": order < 0, "<=": order <= 0, ">": order > 0, ">=": order >= 0}[op]


class Condition:
    def __init__(self, key, raw):
        words = key.split()
        if not key or key != key.strip() or not words:
            raise BadRequest(f"query key {key!r} is malformed; write 'field' or 'field OP'")
        if len(words) > 2:
            raise BadRequest(f"query key {key!r} has {len(words)} words; write 'field' or 'field OP'")
        if words[0] in OPERATORS and words[0] != "in":
            raise BadRequest(f"query key {key!r} has no field name before the operator")
        self.field = words[0]
        op = words[1] if len(words) == 2 else "=="
        if op not in OPERATORS:
            raise BadRequest(f"query key {key!r} has an unknown operator {op!r}; "
                             "the operators are =, ==, !=, <, <=, >, >= and in")
        self.op = OPERATORS[op]
        self.raw = raw
        if self.op == "in":
            try:
                self.candidates = json.loads(raw)
            except ValueError:
                raise BadRequest(f"query key {key!r} needs a JSON array, not {raw!r}")
            if not isinstance(self.candidates, list):
                raise BadRequest(f"query key {key!r} needs a JSON array, not {raw!r}")

    def matches(self, document):
        value = value_at(document, field_path(self.field))
        if value is MISSING:
            return False
        if self.op == "==":
            return equals_raw(value, self.raw)
        if self.op == "!=":
            return not equals_raw(value, self.raw)
        if self.op == "in":
            return any(equals_typed(value, candidate) for candidate in self.candidates)
        return range_raw(value, self.op, self.raw)


def parse_sort(text):
    try:
        spec = json.loads(text)
    except ValueError:
        raise BadRequest(f"_sort is not JSON: {text!r}")
    if isinstance(spec, (dict, str)):
        spec = [spec]
    if not isinstance(spec, list):
        raise BadRequest(f"_sort must be an array, an object or a string, not {text!r}")
    keys = []
    for element in spec:
        if isinstance(element, str):
            keys.append((element[1:], False) if element.startswith("-") else (element, True))
        elif isinstance(element, dict) and len(element) == 1:
            (field, how), = element.items()
            if not isinstance(how, dict) or not isinstance(how.get("ascending", True), bool):
                raise BadRequest(f"_sort gives {field!r} {how!r}; write {{\"ascending\": true|false}}")
            keys.append((field, how.get("ascending", True)))
        else:
            raise BadRequest(f"_sort has the element {element!r}")
    return keys


def parse_count(name, text):
    if not re.fullmatch(r"[0-9]+", text):
        raise BadRequest(f"{name} must be a non-negative integer, not {text!r}")
    return int(text)


def value_at(document, path):
    """The value at a field path, as the store reads one: through objects, and through arrays of
    objects gathering each element's value (arrays found are flattened one level); MISSING when
    there is none."""
    value = document.get(path[0], MISSING)
    for name in path[1:]:
        if isinstance(value, dict):
            value = value.get(name, MISSING)
        elif isinstance(value, list):
            gathered = []
            for element in value:
                found = value_at(element, [name]) if isinstance(element, dict) else MISSING
                if found is MISSING:
                    continue
                gathered += found if isinstance(found, list) else [found]
            value = gathered if gathered else MISSING
        else:
            return MISSING
        if value is MISSING:
            return MISSING
    return value


class SortKey:
    """Sorts documents: each sort key in turn (a missing field first ascending, last descending),
    then the id ascending."""

    def __init__(self, document, keys):
        self.document, self.keys = document, keys

    def __lt__(self, other):
        for field, ascending in self.keys:
            order = compare_sort(self.document.get(field, MISSING), other.document.get(field, MISSING))
            if order:
                return order < 0 if ascending else order > 0
        return compare_sort(self.document.get(ID_KEY, MISSING), other.document.get(ID_KEY, MISSING)) < 0


MISSING = object()


def compare_sort(a, b):
    if a is MISSING or b is MISSING:
        return 0 if a is b else (-1 if a is MISSING else 1)
    return compare(a, b)


# ----------------------------------------------------------------------------------------------
# Collections


class Collection:
    def __init__(self):
        self.documents = {}  # canonical id text -> document

    def query(self, query_string):
        conditions, sort, limit, offset = [], [], None, 0
        seen = set()
        for key, raw in parse_qsl(query_string, keep_blank_values=True):
            if key in seen:
                raise BadRequest(f"query key {key!r} appears twice")
            seen.add(key)
            if key.startswith("_"):
                if key not in OPTIONS:
                    raise BadRequest(f"unknown option {key!r}; the options are _limit, _offset and _sort")
                if key == "_limit":
                    limit = parse_count(key, raw)
                elif key == "_offset":
                    offset = parse_count(key, raw)
                else:
                    sort = parse_sort(raw)
            else:
                conditions.append(Condition(key, raw))
        found = [d for d in self.documents.values() if all(c.matches(d) for c in conditions)]
        found.sort(key=lambda d: SortKey(d, sort))
        found = found[offset:]
        return found if limit is None else found[:limit]


collections = {}
lock = threading.Lock()
# drop-once: requests seen per token.
drop_attempts = {}
id_counter = [0]


def canonical_id(value):
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str) and value:
        return value
    return None


def generated_id():
    id_counter[0] += 1
    return "%016x%06x" % (time.time_ns(), id_counter[0] % 0x1000000)


def closed_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# ----------------------------------------------------------------------------------------------
# HTTP


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "DataStoreRESTTestServer/1"

    def log_message(self, format, *args):  # quiet: tests read only the port from stdout
        pass

    def answer(self, status, payload=None, raw=None, content_type="application/json"):
        body = raw if raw is not None else (b"" if payload is None else json.dumps(payload).encode())
        self.send_response(status)
        if body or status != 204:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def error(self, status, message):
        self.answer(status, {"error": message})

    def read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def read_object(self):
        body = self.read_body()
        try:
            document = json.loads(body or b"null")
        except ValueError:
            raise BadRequest("the body is not JSON")
        if not isinstance(document, dict):
            raise BadRequest("the body must be a JSON object")
        return document

    def do_GET(self):
        self.route()

    def do_POST(self):
        self.route()

    def do_PUT(self):
        self.route()

    def do_DELETE(self):
        self.route()

    def do_PATCH(self):
        self.route()

    def route(self):
        try:
            self.dispatch()
        except BadRequest as problem:
            self.error(400, str(problem))
        except BrokenPipeError:
            pass
        except Exception as problem:  # answer, never die: the tests must see an HTTP status
            self.error(500, f"server bug: {type(problem).__name__}: {problem}")

    def dispatch(self):
        path, _, query_string = self.path.partition("?")
        segments = [unquote(s) for s in path.split("/")[1:]]
        if segments and segments[-1] == "" and len(segments) > 1:
            segments.pop()
        if not segments or segments == [""]:
            return self.error(404, "no collection in the path")
        head = segments[0]
        if head == "faults" and len(segments) == 3 and segments[1] in ("drop-once", "attempts"):
            return self.drop_once(segments[1], segments[2])
        if head == "faults":
            return self.fault(segments[1] if len(segments) > 1 else "")
        if head == "_echo":
            body = self.read_body()
            return self.answer(200, {"method": self.command, "path": self.path,
                                     "headers": {k: v for k, v in self.headers.items()},
                                     "body": body.decode("utf-8", "replace")})
        if head == "_closed-port":
            return self.answer(200, {"port": closed_port()})
        if head == "_reset" and self.command == "POST":
            with lock:
                collections.clear()
            return self.answer(204)
        with lock:
            collection = collections.setdefault(head, Collection())
            return self.collection(collection, head, segments[1:], query_string)

    def collection(self, collection, name, rest, query_string):
        method = self.command
        if not rest:
            if method == "GET":
                return self.answer(200, collection.query(query_string))
            if method == "POST":
                document = self.read_object()
                if canonical_id(document.get(ID_KEY)) is None:
                    if document.get(ID_KEY) not in (None, ""):
                        raise BadRequest(f"id {document[ID_KEY]!r} must be a non-empty string or an integer")
                    document[ID_KEY] = generated_id()
                key = canonical_id(document[ID_KEY])
                if key in collection.documents:
                    return self.error(409, f"an object with id {key!r} already exists in {name}")
                collection.documents[key] = document
                return self.answer(201, document)
            if method == "DELETE":
                found = collection.query(query_string)
                for document in found:
                    collection.documents.pop(canonical_id(document.get(ID_KEY)), None)
                return self.answer(200, {"removed": len(found)})
            return self.error(405, f"{method} is not allowed on a collection")
        if len(rest) != 1:
            return self.error(404, f"no such path {self.path}")
        key = rest[0]
        if key == "_reset" and method == "POST":
            collection.documents.clear()
            return self.answer(204)
        if key == "all" and method == "GET":
            return self.answer(200, collection.query(""))
        if method == "GET":
            if key not in collection.documents:
                return self.error(404, f"no object with id {key!r} in {name}")
            return self.answer(200, collection.documents[key])
        if method == "PUT":
            document = self.read_object()
            if canonical_id(document.get(ID_KEY)) != key:
                document[ID_KEY] = key
            created = key not in collection.documents
            collection.documents[key] = document
            return self.answer(201 if created else 200, document)
        if method == "DELETE":
            if key not in collection.documents:
                return self.error(404, f"no object with id {key!r} in {name}")
            return self.answer(200, collection.documents.pop(key))
        if method == "PATCH":
            return self.patch(collection, name, key)
        return self.error(405, f"{method} is not allowed on an object")

    def patch(self, collection, name, key):
        change = self.read_object()
        parts = {"set": dict, "unset": list, "increment": dict, "append": dict, "remove": dict}
        for part, kind in parts.items():
            if not isinstance(change.get(part, kind()), kind):
                raise BadRequest('a PATCH body is {"set": {...}, "unset": [...], "increment": {...}, '
                                 '"append": {...}, "remove": {...}}')
        changes = [(field, "set", value) for field, value in change.get("set", {}).items()]
        changes += [(field, "unset", None) for field in change.get("unset", [])]
        for part in ("increment", "append", "remove"):
            changes += [(field, part, value) for field, value in change.get(part, {}).items()]
        paths = [(field, field_path(field)) for field, _, _ in changes]
        for field, path in paths:
            if path[0] == ID_KEY:
                raise BadRequest(f"a PATCH may not change the id field {ID_KEY!r}")
        for i, (a, pa) in enumerate(paths):
            for b, pb in paths[i + 1:]:
                if pa[:len(pb)] == pb or pb[:len(pa)] == pa:
                    raise BadRequest(f"a PATCH changes both {a} and {b}, one inside the other")
        if key not in collection.documents:
            return self.error(404, f"no object with id {key!r} in {name}")
        # Applied to a copy: a change that does not fit leaves the stored document as it was.
        document = json.loads(json.dumps(collection.documents[key]))
        try:
            for (field, kind, value), (_, path) in sorted(zip(changes, paths), key=lambda item: item[0][0]):
                apply_change(document, path, kind, value, field)
        except Refused as problem:
            return self.error(422, str(problem))
        collection.documents[key] = document
        return self.answer(200, document)

    def drop_once(self, kind, token):
        self.read_body()
        with lock:
            if kind == "attempts":
                return self.answer(200, {"attempts": drop_attempts.get(token, 0)})
            drop_attempts[token] = drop_attempts.get(token, 0) + 1
            attempts = drop_attempts[token]
        if attempts > 1:
            return self.answer(200, {"id": "1", "message": "after a drop", "attempts": attempts})
        # A reset, not an orderly close: the client learns that the connection was lost.
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.connection.close()
        self.close_connection = True

    def fault(self, kind):
        self.read_body()
        if kind == "500":
            return self.answer(500, raw=b"simulated failure: the database is on fire", content_type="text/plain")
        if kind == "big500":
            return self.answer(500, raw=("\u00e9\u20ac" * 820).encode(), content_type="text/plain")
        if kind == "badjson":
            return self.answer(200, raw=b'{"id": "1", "message": "cut off', content_type="application/json")
        if kind == "object-not-array":
            return self.answer(200, {"id": "1", "message": "one object"})
        if kind == "array-not-object":
            return self.answer(200, [{"id": "1", "message": "in an array"}])
        if kind == "not-objects":
            return self.answer(200, [1, "two", None])
        if kind == "scalar":
            return self.answer(200, "just a string")
        if kind == "empty":
            return self.answer(200, raw=b"")
        if kind == "huge-number":
            return self.answer(200, raw=b'{"id": "1", "count": 18446744073709551615}')
        if kind == "hang":
            time.sleep(30)
            return self.answer(200, {"id": "late"})
        if kind == "404":
            return self.error(404, "simulated: nothing here")
        return self.error(404, f"unknown fault {kind!r}")


class Server(ThreadingHTTPServer):
    # Many tests connect at once; socketserver's default backlog of 5 makes a loaded machine
    # drop and retry connections.
    request_queue_size = 128
    daemon_threads = True


def main():
    global ID_KEY
    if len(sys.argv) > 1:
        ID_KEY = sys.argv[1]
    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)

    def exit_when_stdin_closes():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        finally:
            os._exit(0)

    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
