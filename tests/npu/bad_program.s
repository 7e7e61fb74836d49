# A program with an error on line 4 (tests/CMakeLists.txt: cli.npu_bad_program).
vbcastImm vx1, 3

vlut vx40, vx1, A
