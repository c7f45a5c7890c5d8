#!/usr/bin/env node
// The `tscc++` command: tscc as clang++-14 (C++ sources, and links with the C++ runtime).
'use strict';
require('./launch')('tscc');
