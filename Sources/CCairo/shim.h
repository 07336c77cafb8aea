// cairo (Debian libcairo2-dev): labels as PNG, SVG and PDF with their text, and PNG reading.
#include <cairo.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
