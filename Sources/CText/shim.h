#ifndef CTEXT_SHIM_H
#define CTEXT_SHIM_H

#include <ft2build.h>
#include FT_FREETYPE_H
#include FT_GLYPH_H
#include FT_STROKER_H
#include <hb.h>
#include <hb-ft.h>
#include <fontconfig/fontconfig.h>

#endif
