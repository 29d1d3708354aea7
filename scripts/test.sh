mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
#mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
!mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
vmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
hmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
#mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
,mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
hmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
vmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
ymkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
:mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
hmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
+mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
+mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
(mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Mmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
kmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
+mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
)mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
hmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
ymkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
hmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
(mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
ymkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
)mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
.mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
fmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
=mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
$mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
(mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
$mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
(mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
mmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
$mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
{mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Hmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
_mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
[mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
0mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
]mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
}mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
)mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
.mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
.mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
&mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
&mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
wmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
)mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
$mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
.mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
hmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
jmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
=mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
$mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
(mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
2mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
>mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
vmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
|mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
|mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
hmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
2mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
)mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
mmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
kmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
.mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Mmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Kmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
_mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
_mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Ymkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
=mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
_mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
_mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Ymkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Hmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
=mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Fmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Fmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
\mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
_mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
_mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
=mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
_mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
_mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Hmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Mmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Kmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
=mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
\mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
_mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Wmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Gmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
_mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
_mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
=mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
>mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
vmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
mmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
kmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
jmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
$mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
jmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
ymkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
|mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
gmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
vmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
'mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
^mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
\mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
[mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
*mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
[mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
0mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
9mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
]mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
+mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
%mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
\mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
]mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
|mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
^mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
|mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
^mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
gmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
'mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
|mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
|mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
$mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
{mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
Smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
[mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
0mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
]mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
}mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
qmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
0mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
dmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
cmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
fmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
amkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
lmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
umkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
rmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
jmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
$mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
jmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
.mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
vmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
vmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
bmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
imkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
ymkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
hmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
mmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
ymkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
-mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
qmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
emkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
smkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
/mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
pmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
ymkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
tmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
hmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
omkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
nmkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
 mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
$mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
@mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
"mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi

mkdir -p build
if ! cmake --build build/cpp -j "$jobs" > build/cpp-build.log 2>&1; then
  cat build/cpp-build.log
  echo "test: the C++ build failed (log above, also in build/cpp-build.log)" >&2
  exit 1
fi
