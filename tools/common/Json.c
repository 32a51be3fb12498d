//===- Json.c - A small JSON reader for the tools -------------------------===//
//
// See Json.h. A recursive-descent parser over the whole text; the depth limit
// bounds the recursion.
//
// Why not a Debian JSON library (libcjson-dev, libjson-c-dev): neither keeps
// where a value stands in the text (cJSON reports only the byte where a parse
// error stops; json-c's tokener an offset, likewise), and remat-run's
// manifest errors point at the line and column of the offending value
// ("step.manifest.json:12:17: arguments[3]: \"file\" ..."), well after
// parsing. Keeping those messages would mean a second pass over the text to
// find each value again. This reader is small, bounds its depth, refuses NUL
// characters and repeated keys, and is fuzzed (fuzz/manifest-fuzz.c).
//
//===----------------------------------------------------------------------===//
#include "Json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxDepth = 64 };

typedef struct Parser {
  const char *text;
  size_t length, pos;
  int line, column;
  char *error;
  size_t errorSize;
  bool failed;
} Parser;

static void fail(Parser *p, const char *fmt, ...) {
  if (p->failed)
    return;
  p->failed = true;
  int n = snprintf(p->error, p->errorSize, "%d:%d: ", p->line, p->column);
  if (n < 0 || (size_t)n >= p->errorSize)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->error + n, p->errorSize - (size_t)n, fmt, ap);
  va_end(ap);
}

static int peek(const Parser *p) { return p->pos < p->length ? (unsigned char)p->text[p->pos] : EOF; }

static void advance(Parser *p) {
  if (p->pos >= p->length)
    return;
  if (p->text[p->pos] == '\n') {
    ++p->line;
    p->column = 1;
  } else {
    ++p->column;
  }
  ++p->pos;
}

static void skipSpace(Parser *p) {
  for (int c = peek(p); c == ' ' || c == '\t' || c == '\n' || c == '\r'; c = peek(p))
    advance(p);
}

static bool literal(Parser *p, const char *word) {
  size_t n = strlen(word);
  if (p->length - p->pos < n || memcmp(p->text + p->pos, word, n) != 0)
    return false;
  for (size_t i = 0; i < n; ++i)
    advance(p);
  return true;
}

/// A growable byte buffer for strings.
typedef struct Bytes {
  char *data;
  size_t len, cap;
} Bytes;

static bool push(Bytes *b, char c) {
  if (b->len + 1 >= b->cap) {
    size_t cap = b->cap ? 2 * b->cap : 32;
    char *bigger = realloc(b->data, cap);
    if (!bigger)
      return false;
    b->data = bigger;
    b->cap = cap;
  }
  b->data[b->len++] = c;
  b->data[b->len] = '\0';
  return true;
}

static bool pushUtf8(Bytes *b, uint32_t cp) {
  if (cp < 0x80)
    return push(b, (char)cp);
  if (cp < 0x800)
    return push(b, (char)(0xC0 | (cp >> 6))) && push(b, (char)(0x80 | (cp & 0x3F)));
  if (cp < 0x10000)
    return push(b, (char)(0xE0 | (cp >> 12))) && push(b, (char)(0x80 | ((cp >> 6) & 0x3F))) &&
           push(b, (char)(0x80 | (cp & 0x3F)));
  return push(b, (char)(0xF0 | (cp >> 18))) && push(b, (char)(0x80 | ((cp >> 12) & 0x3F))) &&
         push(b, (char)(0x80 | ((cp >> 6) & 0x3F))) && push(b, (char)(0x80 | (cp & 0x3F)));
}

static int hexDigit(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

static bool readHex4(Parser *p, uint32_t *out) {
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) {
    int d = hexDigit(peek(p));
    if (d < 0) {
      fail(p, "expected four hex digits after \\u");
      return false;
    }
    v = v * 16 + (uint32_t)d;
    advance(p);
  }
  *out = v;
  return true;
}

/// Reads a string literal (the opening quote is next) into a new buffer.
static char *parseString(Parser *p) {
  Bytes b = {0};
  advance(p); // "
  if (!push(&b, '\0')) {
    fail(p, "out of memory");
    return NULL;
  }
  b.len = 0;
  for (;;) {
    int c = peek(p);
    if (c == EOF) {
      fail(p, "unterminated string");
      break;
    }
    if (c == '"') {
      advance(p);
      return b.data;
    }
    if (c < 0x20) {
      fail(p, "control character in a string (escape it)");
      break;
    }
    if (c != '\\') {
      advance(p);
      if (!push(&b, (char)c)) {
        fail(p, "out of memory");
        break;
      }
      continue;
    }
    advance(p);
    int e = peek(p);
    uint32_t cp = 0;
    switch (e) {
    case '"':
    case '\\':
    case '/':
      cp = (uint32_t)e;
      break;
    case 'b':
      cp = '\b';
      break;
    case 'f':
      cp = '\f';
      break;
    case 'n':
      cp = '\n';
      break;
    case 'r':
      cp = '\r';
      break;
    case 't':
      cp = '\t';
      break;
    case 'u':
      advance(p);
      if (!readHex4(p, &cp))
        goto error;
      // The tree holds NUL-terminated strings: an embedded NUL would cut a
      // name or a file name short without a word, so it is refused.
      if (cp == 0) {
        fail(p, "NUL character (\\u0000) in a string");
        goto error;
      }
      if (cp >= 0xD800 && cp < 0xDC00) {
        uint32_t low = 0;
        if (!literal(p, "\\u") || !readHex4(p, &low) || low < 0xDC00 || low >= 0xE000) {
          fail(p, "unpaired UTF-16 surrogate in a \\u escape");
          goto error;
        }
        cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
      } else if (cp >= 0xDC00 && cp < 0xE000) {
        fail(p, "unpaired UTF-16 surrogate in a \\u escape");
        goto error;
      }
      if (!pushUtf8(&b, cp)) {
        fail(p, "out of memory");
        goto error;
      }
      continue;
    default:
      fail(p, "unknown escape in a string");
      goto error;
    }
    advance(p);
    if (!push(&b, (char)cp)) {
      fail(p, "out of memory");
      break;
    }
  }
error:
  free(b.data);
  return NULL;
}

static bool parseNumber(Parser *p, RematJson *out) {
  size_t start = p->pos;
  bool integer = true;
  if (peek(p) == '-')
    advance(p);
  if (peek(p) == '0') {
    advance(p);
  } else if (peek(p) >= '1' && peek(p) <= '9') {
    while (peek(p) >= '0' && peek(p) <= '9')
      advance(p);
  } else {
    fail(p, "malformed number");
    return false;
  }
  if (peek(p) == '.') {
    integer = false;
    advance(p);
    if (!(peek(p) >= '0' && peek(p) <= '9')) {
      fail(p, "malformed number (digits must follow '.')");
      return false;
    }
    while (peek(p) >= '0' && peek(p) <= '9')
      advance(p);
  }
  if (peek(p) == 'e' || peek(p) == 'E') {
    integer = false;
    advance(p);
    if (peek(p) == '+' || peek(p) == '-')
      advance(p);
    if (!(peek(p) >= '0' && peek(p) <= '9')) {
      fail(p, "malformed number (digits must follow the exponent)");
      return false;
    }
    while (peek(p) >= '0' && peek(p) <= '9')
      advance(p);
  }
  char buf[64];
  size_t n = p->pos - start;
  if (n >= sizeof(buf)) {
    fail(p, "number too long");
    return false;
  }
  memcpy(buf, p->text + start, n);
  buf[n] = '\0';
  out->kind = RematJsonNumber;
  out->number = strtod(buf, NULL);
  if (integer) {
    errno = 0;
    long long v = strtoll(buf, NULL, 10);
    out->isInteger = errno == 0;
    out->integer = (int64_t)v;
  }
  return true;
}

static bool parseValue(Parser *p, RematJson *out, int depth);

/// Appends a default node to (items, count, cap); NULL when out of memory.
static RematJson *growItems(RematJson *node, size_t *cap, bool withKeys) {
  if (node->count == *cap) {
    size_t newCap = *cap ? 2 * *cap : 4;
    RematJson *items = realloc(node->items, newCap * sizeof(*items));
    if (!items)
      return NULL;
    node->items = items;
    if (withKeys) {
      char **keys = realloc(node->keys, newCap * sizeof(*keys));
      if (!keys)
        return NULL;
      node->keys = keys;
    }
    *cap = newCap;
  }
  RematJson *item = &node->items[node->count];
  memset(item, 0, sizeof(*item));
  if (withKeys)
    node->keys[node->count] = NULL;
  ++node->count;
  return item;
}

static char *const *sortKeys;

static int compareKeys(const void *a, const void *b) {
  size_t i = *(const size_t *)a, j = *(const size_t *)b;
  int c = strcmp(sortKeys[i], sortKeys[j]);
  return c ? c : (i > j) - (i < j);
}

/// A key given twice would be read as its last value and the first one
/// silently ignored: refused, at the second one. Sorted (n log n), so that a
/// large object cannot make the check quadratic.
static bool checkDuplicateKeys(Parser *p, const RematJson *object) {
  if (object->count < 2)
    return true;
  size_t *order = malloc(object->count * sizeof(size_t));
  if (!order) {
    fail(p, "out of memory");
    return false;
  }
  for (size_t i = 0; i < object->count; ++i)
    order[i] = i;
  sortKeys = object->keys;
  qsort(order, object->count, sizeof(size_t), compareKeys);
  bool ok = true;
  for (size_t i = 1; ok && i < object->count; ++i) {
    if (strcmp(object->keys[order[i - 1]], object->keys[order[i]]) != 0)
      continue;
    const RematJson *second = &object->items[order[i]];
    p->line = second->line;
    p->column = second->column;
    fail(p, "key \"%s\" is given twice in one object", object->keys[order[i]]);
    ok = false;
  }
  free(order);
  return ok;
}

static bool parseContainer(Parser *p, RematJson *out, int depth, bool object) {
  out->kind = object ? RematJsonObject : RematJsonArray;
  if (depth >= kMaxDepth) {
    fail(p, "nested deeper than %d levels", kMaxDepth);
    return false;
  }
  advance(p); // [ or {
  skipSpace(p);
  int close = object ? '}' : ']';
  if (peek(p) == close) {
    advance(p);
    return true;
  }
  size_t cap = 0;
  for (;;) {
    skipSpace(p);
    char *key = NULL;
    if (object) {
      if (peek(p) != '"') {
        fail(p, "expected a string key");
        return false;
      }
      key = parseString(p);
      if (!key)
        return false;
      skipSpace(p);
      if (peek(p) != ':') {
        free(key);
        fail(p, "expected ':' after a key");
        return false;
      }
      advance(p);
      skipSpace(p);
    }
    RematJson *item = growItems(out, &cap, object);
    if (!item) {
      free(key);
      fail(p, "out of memory");
      return false;
    }
    if (object)
      out->keys[out->count - 1] = key;
    if (!parseValue(p, item, depth + 1))
      return false;
    skipSpace(p);
    if (peek(p) == ',') {
      advance(p);
      continue;
    }
    if (peek(p) == close) {
      advance(p);
      return !object || checkDuplicateKeys(p, out);
    }
    fail(p, object ? "expected ',' or '}'" : "expected ',' or ']'");
    return false;
  }
}

static bool parseValue(Parser *p, RematJson *out, int depth) {
  skipSpace(p);
  out->line = p->line;
  out->column = p->column;
  int c = peek(p);
  switch (c) {
  case '{':
    return parseContainer(p, out, depth, true);
  case '[':
    return parseContainer(p, out, depth, false);
  case '"':
    out->kind = RematJsonString;
    out->string = parseString(p);
    return out->string != NULL;
  case 't':
  case 'f':
    out->kind = RematJsonBool;
    out->boolean = c == 't';
    if (literal(p, c == 't' ? "true" : "false"))
      return true;
    break;
  case 'n':
    out->kind = RematJsonNull;
    if (literal(p, "null"))
      return true;
    break;
  default:
    if (c == '-' || (c >= '0' && c <= '9'))
      return parseNumber(p, out);
    break;
  }
  fail(p, c == EOF ? "unexpected end of input, expected a value" : "expected a value");
  return false;
}

static void freeNode(RematJson *json) {
  free(json->string);
  for (size_t i = 0; i < json->count; ++i) {
    freeNode(&json->items[i]);
    if (json->keys)
      free(json->keys[i]);
  }
  free(json->items);
  free(json->keys);
}

void rematJsonFree(RematJson *json) {
  if (!json)
    return;
  freeNode(json);
  free(json);
}

RematJson *rematJsonParse(const char *text, size_t length, char *error, size_t errorSize) {
  Parser p = {.text = text, .length = length, .line = 1, .column = 1, .error = error, .errorSize = errorSize};
  if (errorSize)
    error[0] = '\0';
  RematJson *root = calloc(1, sizeof(*root));
  if (!root) {
    snprintf(error, errorSize, "out of memory");
    return NULL;
  }
  // A UTF-8 byte order mark is tolerated.
  if (length >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
    p.pos = 3;
  if (parseValue(&p, root, 0)) {
    skipSpace(&p);
    if (p.pos < p.length)
      fail(&p, "unexpected text after the JSON value");
  }
  if (p.failed) {
    rematJsonFree(root);
    return NULL;
  }
  return root;
}

const RematJson *rematJsonGet(const RematJson *object, const char *key) {
  if (!object || object->kind != RematJsonObject)
    return NULL;
  const RematJson *found = NULL;
  for (size_t i = 0; i < object->count; ++i)
    if (object->keys[i] && strcmp(object->keys[i], key) == 0)
      found = &object->items[i];
  return found;
}

const char *rematJsonKindGetName(RematJsonKind kind) {
  switch (kind) {
  case RematJsonNull:
    return "null";
  case RematJsonBool:
    return "a boolean";
  case RematJsonNumber:
    return "a number";
  case RematJsonString:
    return "a string";
  case RematJsonArray:
    return "an array";
  case RematJsonObject:
    return "an object";
  }
  return "?";
}
