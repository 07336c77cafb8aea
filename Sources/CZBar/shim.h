// zbar (Debian libzbar-dev): QR codes found in an image (`--image`) or a console camera frame.
#include <zbar.h>
