#!/usr/bin/env -S -u NODE_EXTRA_CA_CERTS node
// The `tscc++` command: tscc as clang++-14 (C++ sources, and links with the C++ runtime).
// `env -u NODE_EXTRA_CA_CERTS`: with that variable set, Node loads the system's CA certificates
// at every start (about 50 ms of CPU), for TLS this command never speaks.
'use strict';
require('./launch')('tscc');
