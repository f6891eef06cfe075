#include <cblas.h>
/* OpenBLAS extensions (declared in its cblas.h; repeated here for builds whose cblas.h lacks them). */
void openblas_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
char *openblas_get_corename(void);
char *openblas_get_config(void);
