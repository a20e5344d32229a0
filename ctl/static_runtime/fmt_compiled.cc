// fmt's compiled-library part, for the static canopyctl (CMakeLists.txt says why). Included
// without FMT_HEADER_ONLY, format-inl.h defines fmt's non-template functions here; the templates
// below are the ones fmt's own library instantiates for char and its callers expect to find
// compiled. A symbol missing here fails canopyctl's link, never at run time.
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {

template auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;
template auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl(locale_ref) -> char;
template void buffer<char>::append(const char*, const char*);
template void vformat_to(buffer<char>&, string_view, basic_format_args<FMT_BUFFER_CONTEXT(char)>,
                         locale_ref);

}  // namespace detail
FMT_END_NAMESPACE
