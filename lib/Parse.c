//===- Parse.c - Reading user IR safely -----------------------------------===//
#include "remat/Parse.h"

#include <stdio.h>
#include <string.h>

#include "mlir-c/Diagnostics.h"

#include "mlir-c/Pass.h"

#include "Clock.h"
#include "Donation.h"
#include "NestingDepth.h"
#include "Pipeline.h"
#include "Scatter.h"

/// Parses in one context. Several top-level ops get an implicit module, as
/// in mlir-opt. MLIR's C API names the buffer only when it reads the file
/// itself, so text from memory carries an empty file name in its locations
/// (the tools print the input's name for it).
static MlirModule parseIn(MlirContext ctx, MlirStringRef source, MlirStringRef fileName) {
  if (fileName.length)
    return mlirModuleCreateParseFromFile(ctx, fileName);
  return mlirModuleCreateParse(ctx, source);
}

// Dialects the validation context registers (see Context.c); an opaque type
// of any other dialect is a type MLIR only keeps as text.
static const char *const kKnownDialects[] = {"func",          "arith",  "math",    "linalg",     "tensor",
                                             "bufferization", "memref", "scf",     "cf",         "affine",
                                             "gpu",           "index",  "complex", "ml_program", NULL};

static bool isIdentChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/// One line of the source, for the checks that run before parsing.
typedef struct SourceLine {
  const char *text; ///< Not terminated; `length` bytes, without the newline.
  size_t length;
  unsigned number; ///< 1-based.
} SourceLine;

/// The next line of `source` at or after `*offset`; false at the end.
static bool nextSourceLine(MlirStringRef source, size_t *offset, SourceLine *line) {
  if (*offset >= source.length)
    return false;
  const char *s = source.data + *offset;
  size_t length = 0;
  while (*offset + length < source.length && s[length] != '\n')
    ++length;
  line->text = s;
  line->length = length;
  ++line->number;
  *offset += length + 1;
  return true;
}

/// The first position at or after `from` in `line` where `prefix` starts a
/// bare word: outside a string (a generic-form op name is quoted), before a
/// `//` comment, not preceded by an identifier character. SIZE_MAX if none.
static size_t findBareWord(const SourceLine *line, const char *prefix, size_t from) {
  size_t len = strlen(prefix);
  bool quoted = false;
  for (size_t i = 0; i < line->length; ++i) {
    char c = line->text[i];
    if (c == '"')
      quoted = !quoted;
    if (!quoted && c == '/' && i + 1 < line->length && line->text[i + 1] == '/')
      break;
    if (quoted || i < from || (i > 0 && isIdentChar(line->text[i - 1])))
      continue;
    if (i + len <= line->length && memcmp(line->text + i, prefix, len) == 0)
      return i;
  }
  return SIZE_MAX;
}

static void emitAtLine(MlirContext ctx, MlirStringRef fileName, const SourceLine *line, size_t column,
                       const char *msg) {
  MlirStringRef name = fileName.length ? fileName : mlirStringRefCreateFromCString("-");
  mlirEmitError(mlirLocationFileLineColGet(ctx, name, line->number, (unsigned)(column + 1)), msg);
}

/// MLIR 22's parser crashes (a null function_ref in the named-op region
/// builder) when a named linalg op has operands of an unregistered dialect's
/// opaque type, e.g. `linalg.batch_matmul` over `!amx.tile`. Such a line is
/// refused before parsing, with its location. Returns false after emitting.
static bool rejectCrashingLinalgTypes(MlirContext ctx, MlirStringRef source, MlirStringRef fileName) {
  size_t offset = 0;
  SourceLine line = {0};
  while (nextSourceLine(source, &offset, &line)) {
    size_t opPos = findBareWord(&line, "linalg.", 0);
    while (opPos != SIZE_MAX && findBareWord(&line, "linalg.generic", opPos) == opPos)
      opPos = findBareWord(&line, "linalg.", opPos + 1);
    if (opPos == SIZE_MAX)
      continue;
    const char *s = line.text;
    for (size_t i = opPos; i + 1 < line.length; ++i) {
      if (s[i] != '!' || !isIdentChar(s[i + 1]))
        continue;
      size_t j = i + 1;
      while (j < line.length && isIdentChar(s[j]))
        ++j;
      if (j >= line.length || s[j] != '.')
        continue;
      bool known = false;
      for (const char *const *d = kKnownDialects; *d; ++d)
        if (strlen(*d) == j - i - 1 && memcmp(*d, s + i + 1, j - i - 1) == 0)
          known = true;
      if (known)
        continue;
      char msg[256];
      snprintf(msg, sizeof(msg),
               "remat: named linalg op over a type of dialect '%.*s', which remat does not register "
               "(MLIR 22's parser crashes on such input, so it is refused)",
               (int)(j - i - 1), s + i + 1);
      emitAtLine(ctx, fileName, &line, i, msg);
      return false;
    }
  }
  return true;
}

/// torch-mlir prints its TMTensor ops (tm_tensor.scatter, ...) and IREE its
/// LinalgExt ops (iree_linalg_ext.scatter, ...) in a custom form only their
/// own dialects parse; MLIR 22 has neither. The first line with such an op
/// outside quotes (the generic form quotes the name) is refused with what to
/// do instead. Returns false after emitting.
static bool rejectCustomForeignOps(MlirContext ctx, MlirStringRef source, MlirStringRef fileName) {
  static const struct {
    const char *prefix, *advice;
  } kDialects[] = {
      {"tm_tensor.", "torch-mlir's custom form, which only its TMTensor dialect parses (MLIR 22 has none); print the "
                     "module in generic form (torch-mlir: module.operation.print(print_generic_op_form=True), or "
                     "torch-mlir-opt --mlir-print-op-generic): remat reads tm_tensor.scatter in that form"},
      {"iree_linalg_ext.", "IREE's custom form, which only its LinalgExt dialect parses (MLIR 22 has none); print the "
                           "module in generic form (iree-compile --mlir-print-op-generic; remat.jax.export_step writes "
                           "it so): remat reads iree_linalg_ext.scatter in that form"},
  };
  size_t offset = 0;
  SourceLine line = {0};
  while (nextSourceLine(source, &offset, &line)) {
    size_t first = SIZE_MAX, which = 0;
    for (size_t d = 0; d < sizeof(kDialects) / sizeof(kDialects[0]); ++d) {
      size_t at = findBareWord(&line, kDialects[d].prefix, 0);
      if (at < first)
        first = at, which = d;
    }
    if (first == SIZE_MAX)
      continue;
    size_t j = first + strlen(kDialects[which].prefix);
    while (j < line.length && (isIdentChar(line.text[j]) || line.text[j] == '.'))
      ++j;
    char msg[640];
    snprintf(msg, sizeof(msg), "remat: '%.*s' is in %s", (int)(j - first), line.text + first, kDialects[which].advice);
    emitAtLine(ctx, fileName, &line, first, msg);
    return false;
  }
  return true;
}

/// Input nested deeper than MLIR's recursive parser can take is refused at
/// the bracket that goes too deep (NestingDepth.h). False after emitting.
static bool rejectDeepNesting(MlirContext ctx, MlirStringRef source, MlirStringRef fileName) {
  unsigned line = 0, column = 0;
  if (!rematFindDeepNesting(source.data, source.length, REMAT_MAX_NESTING_DEPTH, &line, &column))
    return true;
  char msg[256];
  snprintf(msg, sizeof(msg),
           "remat: the input nests regions, types or attributes ({ ( [ <) more than %d levels deep here; MLIR's "
           "parser would exhaust the stack, so it is refused",
           REMAT_MAX_NESTING_DEPTH);
  MlirStringRef name = fileName.length ? fileName : mlirStringRefCreateFromCString("-");
  mlirEmitError(mlirLocationFileLineColGet(ctx, name, line, column), msg);
  return false;
}

MlirModule rematModuleParse(MlirContext validation, MlirContext working, MlirStringRef source, MlirStringRef fileName,
                            double *parseSeconds) {
  if (!rejectDeepNesting(validation, source, fileName))
    return (MlirModule){NULL};
  if (!rejectCrashingLinalgTypes(validation, source, fileName) || !rejectCustomForeignOps(validation, source, fileName))
    return (MlirModule){NULL};
  MlirModule checked = parseIn(validation, source, fileName);
  if (mlirModuleIsNull(checked))
    return checked;
  // Regions nested deeper than the analysis can take in reasonable time
  // (NestingDepth.h): refused at the op that goes too deep.
  MlirOperation deep = rematFindDeepRegion(mlirModuleGetOperation(checked), REMAT_MAX_REGION_DEPTH);
  if (!mlirOperationIsNull(deep)) {
    char msg[320];
    snprintf(msg, sizeof(msg),
             "remat: regions nested more than %d deep (this op's regions are at depth %d in the module): MLIR's "
             "bufferization analysis takes time exponential in the nesting, so the input is refused",
             REMAT_MAX_REGION_DEPTH, REMAT_MAX_REGION_DEPTH + 1);
    mlirEmitError(mlirOperationGetLocation(deep), msg);
    mlirModuleDestroy(checked);
    return (MlirModule){NULL};
  }
  mlirModuleDestroy(checked);
  double t0 = rematNowSeconds();
  MlirModule module = parseIn(working, source, fileName);
  if (parseSeconds)
    *parseSeconds = rematNowSeconds() - t0;
  return module;
}

MlirLogicalResult rematModuleNormalize(MlirModule module) {
  MlirContext ctx = mlirModuleGetContext(module);
  MlirPassManager pm = mlirPassManagerCreate(ctx);
  MlirLogicalResult result = mlirParsePassPipeline(
      mlirPassManagerGetAsOpPassManager(pm),
      mlirStringRefCreateFromCString("builtin.module(" REMAT_PIPELINE_ELEMENTWISE_TO_LINALG ")"), NULL, NULL);
  if (mlirLogicalResultIsSuccess(result))
    result = mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module));
  mlirPassManagerDestroy(pm);
  // The scatters of torch-mlir and IREE, which no MLIR verifier checks here
  // (lib/Scatter.h).
  if (mlirLogicalResultIsSuccess(result))
    result = rematCheckScatters(module);
  if (mlirLogicalResultIsSuccess(result))
    result = rematApplyDonations(module);
  return result;
}
