// zbar (Debian libzbar-dev): QR codes found in an image.
#include <zbar.h>
