//===- Files.c - Opening the files the tools read besides the IR ----------===//
//
// See Files.h.
//
//===----------------------------------------------------------------------===//
#define _POSIX_C_SOURCE 200809L

#include "Files.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *rematOpenRegularFile(const char *path, uint64_t *size, char *error, size_t errorSize) {
  // O_NONBLOCK: opening a FIFO for reading would wait for a writer.
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    snprintf(error, errorSize, "%s", strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(error, errorSize, "%s", S_ISDIR(st.st_mode) ? "it is a directory" : "not a regular file");
    close(fd);
    return NULL;
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0)
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    snprintf(error, errorSize, "%s", strerror(errno));
    close(fd);
    return NULL;
  }
  *size = (uint64_t)st.st_size;
  return f;
}
