// The one translation unit that compiles Boost.Beast
// (BOOST_BEAST_SEPARATE_COMPILATION is set project-wide).
#include <boost/beast/src.hpp>
