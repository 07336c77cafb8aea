// libqrencode (Debian libqrencode-dev): the QR matrix of a label's payload.
#include <qrencode.h>
