;; The resampler's inner loop (engine/audio/resample.ts) in WebAssembly SIMD: four taps per
;; multiply-add instead of one. Built into fir-wasm.ts by `npm run build:wasm`; a test checks that
;; the committed bytes are this file's.
;;
;; fir(in, taps, len, out, count, phase, up, down)
;;   in     byte offset of f32 input: output 0's first tap multiplies in[0]
;;   taps   byte offset of the f32 table: `up` rows of `len` taps, row p for output phase p
;;   len    taps per row, a multiple of 4 (rows are zero-padded)
;;   out    byte offset of the i16 output, `count` samples
;;   phase  output 0's phase (0 … up-1); each output adds `down` to the phase and moves the input
;;          one sample per `up` it overflows (JS works out where that ends, in closed form)
;; Outputs are rounded to nearest and clamped to the int16 range.
(module
  (memory (export "memory") 1)
  (func (export "fir")
    (param $in i32) (param $taps i32) (param $len i32) (param $out i32)
    (param $count i32) (param $phase i32) (param $up i32) (param $down i32)
    (local $i i32) (local $j i32) (local $row i32) (local $acc v128) (local $s f32)
    (block $done
      (br_if $done (i32.le_s (local.get $count) (i32.const 0)))
      (loop $output
        (local.set $row (i32.add (local.get $taps) (i32.shl (i32.mul (local.get $phase) (local.get $len)) (i32.const 2))))
        (local.set $acc (v128.const f32x4 0 0 0 0))
        (local.set $j (i32.const 0))
        (loop $tap
          (local.set $acc
            (f32x4.add (local.get $acc)
              (f32x4.mul
                (v128.load (i32.add (local.get $in) (local.get $j)))
                (v128.load (i32.add (local.get $row) (local.get $j))))))
          (local.set $j (i32.add (local.get $j) (i32.const 16)))
          (br_if $tap (i32.lt_u (local.get $j) (i32.shl (local.get $len) (i32.const 2)))))
        (local.set $s
          (f32.nearest
            (f32.add
              (f32.add (f32x4.extract_lane 0 (local.get $acc)) (f32x4.extract_lane 1 (local.get $acc)))
              (f32.add (f32x4.extract_lane 2 (local.get $acc)) (f32x4.extract_lane 3 (local.get $acc))))))
        (i32.store16 (local.get $out)
          (i32.trunc_sat_f32_s (f32.max (f32.const -32768) (f32.min (f32.const 32767) (local.get $s)))))
        (local.set $out (i32.add (local.get $out) (i32.const 2)))
        ;; Advance: phase += down; one input sample per `up` it overflows.
        (local.set $phase (i32.add (local.get $phase) (local.get $down)))
        (block $stepped
          (loop $step
            (br_if $stepped (i32.lt_u (local.get $phase) (local.get $up)))
            (local.set $phase (i32.sub (local.get $phase) (local.get $up)))
            (local.set $in (i32.add (local.get $in) (i32.const 4)))
            (br $step)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $output (i32.lt_s (local.get $i) (local.get $count)))))))
