#include <cblas.h>

/* OpenBLAS's own threads: stopped by blas_thread_shutdown_ (exported by its pthread build; the
   serial and OpenMP builds may lack it, hence weak). */
extern int blas_thread_shutdown_(void) __attribute__((weak));

/* Makes OpenBLAS compute every product on the calling thread, and ends the worker threads it
   started when it loaded: told only to use one thread, they keep polling for work with
   sched_yield, a quarter of a detector's CPU. hotword shares work among threads itself. */
static inline void hotword_blas_single_threaded(void) {
    openblas_set_num_threads(1);
    if (blas_thread_shutdown_) blas_thread_shutdown_();
}
