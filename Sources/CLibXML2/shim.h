#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
/*
 * libxml2, used directly: Foundation's XMLParser on Linux wraps it with callbacks that crash
 * on a processing instruction without data (found by `make fuzz`), and it reports errors by
 * code only. libxml2 itself gives the message, the line and the column.
 */
#include <libxml/xmlversion.h>
/*
 * Debian's libxml2 is built with ICU, whose headers clash with the ICU that Foundation
 * bundles. Nothing here touches the converter structs ICU adds to, so leave ICU out.
 */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

/*
 * libxml2 keeps only the last error of a parse, often "premature end of data" at the end of
 * the file; the first one is where the document went wrong. The context's `_private` points
 * at the caller's zeroed xmlError, which receives a copy of the first error (the caller
 * frees it with xmlResetError). A structured handler also keeps libxml2 off stderr.
 */
static void CLibXML2_keepFirst(void *data, xmlErrorPtr error) {
  xmlParserCtxtPtr context = (xmlParserCtxtPtr)data;
  xmlErrorPtr first = context ? (xmlErrorPtr)context->_private : NULL;
  if (first != NULL && first->code == 0 && error != NULL) xmlCopyError(error, first);
}

static inline void CLibXML2_keepFirstError(xmlParserCtxtPtr context, xmlErrorPtr first) {
  context->_private = first;
  context->userData = context;
  context->sax->serror = CLibXML2_keepFirst;
}
#endif
