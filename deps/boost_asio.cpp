// The one translation unit that compiles Boost.Asio and its SSL support
// (BOOST_ASIO_SEPARATE_COMPILATION is set project-wide).
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
