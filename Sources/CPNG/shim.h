// libpng 1.6 (Debian libpng-dev): its simplified read API decodes a PNG straight to 8-bit grey.
#include <png.h>
