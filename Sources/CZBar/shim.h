// zbar's C API (Debian libzbar-dev): the web console decodes camera frames with it.
#include <zbar.h>
