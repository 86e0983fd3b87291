# The test docs.api_reference (cmake -P): runs Doxygen with warnings as errors, then checks what
# Doxygen 1.9.4 does not warn about: an enum value without documentation (its
# WARN_IF_UNDOC_ENUM_VAL came in 1.9.8). Fails, naming every problem, when either finds one.
#   cmake -DDOXYGEN=<doxygen> -DDOXYFILE=<Doxyfile.check> -DXML_DIR=<its XML output> -P <this>
cmake_minimum_required(VERSION 3.25)
foreach(var IN ITEMS DOXYGEN DOXYFILE XML_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_api_reference.cmake needs -D${var}=...")
  endif()
endforeach()

# A fresh XML folder, so that nothing from an earlier run is checked.
file(REMOVE_RECURSE ${XML_DIR})
execute_process(COMMAND ${DOXYGEN} ${DOXYFILE} RESULT_VARIABLE doxygen_status)

# Every public <enumvalue> of the XML output must hold a description (a <para>). The XML has
# private members too (prot="private"): they are not part of the API reference, and not checked.
# An enum appears in the XML of its namespace or class and in that of its file: each value is
# reported once, by id.
set(undocumented "")
set(seen "")
file(GLOB xml_files ${XML_DIR}/*.xml)
foreach(xml_file IN LISTS xml_files)
  file(READ ${xml_file} xml)
  string(REGEX MATCH "<compoundname>([^<]*)</compoundname>" _ "${xml}")
  set(compound "${CMAKE_MATCH_1}")
  while(TRUE)
    string(FIND "${xml}" "<enumvalue " start)
    if(start EQUAL -1)
      break()
    endif()
    string(SUBSTRING "${xml}" ${start} -1 xml)
    string(FIND "${xml}" "</enumvalue>" end)
    if(end EQUAL -1)
      message(FATAL_ERROR "${xml_file}: an <enumvalue> without its end tag")
    endif()
    string(SUBSTRING "${xml}" 0 ${end} value)
    string(SUBSTRING "${xml}" ${end} -1 xml)
    string(REGEX MATCH "^<enumvalue [^>]*>" tag "${value}")
    if(NOT tag MATCHES "prot=\"public\"")
      continue()
    endif()
    string(REGEX MATCH "id=\"([^\"]*)\"" _ "${tag}")
    set(id "${CMAKE_MATCH_1}")
    if(id IN_LIST seen)
      continue()
    endif()
    list(APPEND seen "${id}")
    if(NOT value MATCHES "<para>")
      string(REGEX MATCH "<name>([^<]*)</name>" _ "${value}")
      string(APPEND undocumented "  enum value ${CMAKE_MATCH_1} (in ${compound}) is not documented\n")
    endif()
  endwhile()
endforeach()

if(NOT xml_files)
  message(FATAL_ERROR "Doxygen wrote no XML into ${XML_DIR} (exit status ${doxygen_status})")
endif()
if(undocumented)
  message(SEND_ERROR "Undocumented enum values (document each with ///< after it):\n${undocumented}")
endif()
if(NOT doxygen_status EQUAL 0)
  message(SEND_ERROR "Doxygen reported the warnings above (exit status ${doxygen_status}); the "
                     "API reference must build without any")
endif()
