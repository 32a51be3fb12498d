//===- Files.h - Opening the files the tools read besides the IR ---*- C -*-===//
//
// Manifests and argument files (.npy, raw) are regular files. A directory
// named like one opens and then reads as an error that says nothing useful
// ("no NUMPY magic"); a FIFO blocks the open until a writer comes (a hang); a
// device may never end. rematOpenRegularFile refuses all of them by name,
// without blocking.
//
//===----------------------------------------------------------------------===//
#ifndef REMAT_TOOL_FILES_H
#define REMAT_TOOL_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/// Opens `path` for reading when it is a regular file (symbolic links
/// followed); its size in `*size`. NULL with the reason in `error` ("it is a
/// directory", "not a regular file", strerror).
FILE *rematOpenRegularFile(const char *path, uint64_t *size, char *error, size_t errorSize);

#endif // REMAT_TOOL_FILES_H
