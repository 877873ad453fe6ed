# SPDX-License-Identifier: Apache-2.0
# cmake -DINPUT=file -DOUTPUT=file.cpp -DSYMBOL=name -P EmbedFile.cmake
# Writes a C++ file defining `const unsigned char SYMBOL[]` and
# `const unsigned long SYMBOL_size` with the bytes of INPUT.
file(READ ${INPUT} HEX HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," BYTES "${HEX}")
file(WRITE ${OUTPUT}
  "// Generated from ${INPUT}; do not edit.\n"
  "extern const unsigned char ${SYMBOL}[] = {${BYTES}};\n"
  "extern const unsigned long ${SYMBOL}_size = sizeof(${SYMBOL});\n")
