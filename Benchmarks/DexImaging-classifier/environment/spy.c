// Preloaded into ClassifierBench by run.sh: reports every setenv, putenv and unsetenv call on
// standard error ("ENVSPY ..."), then makes it. The classifier must change nothing in its
// host's environment (issue 43: the shim once set OMP_WAIT_POLICY while libgomp started).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int setenv(const char *name, const char *value, int overwrite) {
  fprintf(stderr, "ENVSPY setenv %s=%s\n", name, value);
  int (*real)(const char *, const char *, int) = dlsym(RTLD_NEXT, "setenv");
  return real(name, value, overwrite);
}

int putenv(char *string) {
  fprintf(stderr, "ENVSPY putenv %s\n", string);
  int (*real)(char *) = dlsym(RTLD_NEXT, "putenv");
  return real(string);
}

int unsetenv(const char *name) {
  fprintf(stderr, "ENVSPY unsetenv %s\n", name);
  int (*real)(const char *) = dlsym(RTLD_NEXT, "unsetenv");
  return real(name);
}
