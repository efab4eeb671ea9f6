//! Kanju's USI front end.
#![deny(missing_docs)]
