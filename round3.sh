nvidia-smi -L
nvcc -std=c++17 -O3 -arch=sm_90 -I. -Itools/bench tools/bench/attention_decode_bench.cu -o /tmp/adb || exit 1
/tmp/adb | tee $OUT/attention_decode.md
timeout 100 ncu --section SpeedOfLight --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis -k regex:attention_decode_kernel --launch-skip 28160 -c 1 /tmp/adb > $OUT/ncu_step.txt 2>&1
grep -iE "stall|Duration|Elapsed Cycles|Warp Cycles Per Issued|Stall|Grid Size|Block Size|Cluster|Registers|DRAM Throughput|Memory Throughput|L2 Hit|Achieved Occupancy|Waves" $OUT/ncu_step.txt | head -40
