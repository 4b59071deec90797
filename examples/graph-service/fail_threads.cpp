// Test helper of test_faults.sh, loaded with LD_PRELOAD: pthread_create fails with EAGAIN (as
// under a process or address-space limit) while the file named by $GRAPH_SERVICE_FAIL_THREADS
// exists, and works as usual otherwise.
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

extern "C" int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
  using Create = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static const auto real = reinterpret_cast<Create>(dlsym(RTLD_NEXT, "pthread_create"));
  const char* flag = std::getenv("GRAPH_SERVICE_FAIL_THREADS");
  if (flag != nullptr && ::access(flag, F_OK) == 0) return EAGAIN;
  return real(thread, attr, start, arg);
}
