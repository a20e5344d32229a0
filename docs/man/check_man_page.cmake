# ctest: a rendered man page has its title line and the sections every page has.
file(READ ${PAGE} text)
foreach(want ".TH ${TITLE} ${SECTION} " ".SH NAME" ".SH SYNOPSIS" ".SH DESCRIPTION" ".SH SEE ALSO")
  string(FIND "${text}" "${want}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${PAGE}: no '${want}'")
  endif()
endforeach()
