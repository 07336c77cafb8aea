// libjpeg-turbo's TurboJPEG API (Debian libturbojpeg0-dev): JPEG photos decoded to grey for zbar.
#include <stddef.h>
#include <turbojpeg.h>
