;; A hand-written clat:plugin@0.1.0 guest in WebAssembly text, using the canonical ABI directly.
;; Proves non-JS guests load through the same host: no WASI imports, one host import (config.get).
;; Tools dispatch on the first byte of the name. Memory: 1024.. static strings, 4096.. tool
;; definitions, 512 result area, 65536.. bump heap for cabi_realloc.
(module
  (import "clat:plugin/config@0.1.0" "get" (func $config_get (param i32)))
  (memory (export "memory") 2)
  (global $heap (mut i32) (i32.const 65536))
  (func $realloc (export "cabi_realloc") (param $old i32) (param $old_size i32) (param $align i32) (param $size i32) (result i32)
    (local $ptr i32)
    ;; align up, then grow memory when the bump pointer passes its end
    (local.set $ptr (i32.and (i32.add (global.get $heap) (i32.sub (local.get $align) (i32.const 1))) (i32.sub (i32.const 0) (local.get $align))))
    (global.set $heap (i32.add (local.get $ptr) (local.get $size)))
    (block $fits
      (br_if $fits (i32.le_u (global.get $heap) (i32.mul (memory.size) (i32.const 65536))))
      (br_if $fits (i32.ne (memory.grow (i32.add (i32.div_u (i32.sub (global.get $heap) (i32.mul (memory.size) (i32.const 65536))) (i32.const 65536)) (i32.const 1))) (i32.const -1)))
      unreachable)
    (local.get $ptr))
  (func (export "clat:plugin/tools@0.1.0#list-tools") (result i32)
    (i32.store (i32.const 528) (i32.const 4096))
    (i32.store (i32.const 532) (i32.const 6))
    (i32.const 528))
  ;; result<string, string> at 512: discriminant byte, then pointer and length
  (func $ok (param $ptr i32) (param $len i32) (result i32)
    (i32.store8 (i32.const 512) (i32.const 0))
    (i32.store (i32.const 516) (local.get $ptr))
    (i32.store (i32.const 520) (local.get $len))
    (i32.const 512))
  (func $err (param $ptr i32) (param $len i32) (result i32)
    (i32.store8 (i32.const 512) (i32.const 1))
    (i32.store (i32.const 516) (local.get $ptr))
    (i32.store (i32.const 520) (local.get $len))
    (i32.const 512))
  (func (export "clat:plugin/tools@0.1.0#call") (param $name i32) (param $name_len i32) (param $args i32) (param $args_len i32) (result i32)
    (local $first i32)
    (local.set $first (i32.load8_u (local.get $name)))
    (if (i32.eq (local.get $first) (i32.const 101)) (then (return (call $ok (local.get $args) (local.get $args_len)))))
    (if (i32.eq (local.get $first) (i32.const 99)) (then (call $config_get (i32.const 512)) (return (i32.const 512))))
    (if (i32.eq (local.get $first) (i32.const 102)) (then (return (call $err (i32.const 1235) (i32.const 17)))))
    (if (i32.eq (local.get $first) (i32.const 115)) (then (loop $forever (br $forever))))
    (if (i32.eq (local.get $first) (i32.const 103)) (then (loop $more (br_if $more (i32.ne (memory.grow (i32.const 256)) (i32.const -1)))) (return (call $err (i32.const 1252) (i32.const 44)))))
    (if (i32.eq (local.get $first) (i32.const 116)) (then unreachable))
    (call $err (i32.const 1296) (i32.const 12)))
  (data (i32.const 1024) "echo")
  (data (i32.const 1028) "Returns its arguments unchanged")
  (data (i32.const 1059) "config")
  (data (i32.const 1065) "Returns the plugin configuration from the host")
  (data (i32.const 1111) "fail")
  (data (i32.const 1115) "Always returns an error")
  (data (i32.const 1138) "spin")
  (data (i32.const 1142) "Loops forever")
  (data (i32.const 1155) "grow")
  (data (i32.const 1159) "Grows memory until the cap stops it")
  (data (i32.const 1194) "trap")
  (data (i32.const 1198) "Executes unreachable")
  (data (i32.const 1218) "{\"type\":\"object\"}")
  (data (i32.const 1235) "failed on purpose")
  (data (i32.const 1252) "out of memory: memory.grow failed at the cap")
  (data (i32.const 1296) "unknown tool")
  ;; definition echo
  (data (i32.const 4096) "\00\04\00\00\04\00\00\00\04\04\00\00\1f\00\00\00\c2\04\00\00\11\00\00\00\00\00\00\00")
  ;; definition config
  (data (i32.const 4124) "\23\04\00\00\06\00\00\00\29\04\00\00\2e\00\00\00\c2\04\00\00\11\00\00\00\01\00\00\00")
  ;; definition fail
  (data (i32.const 4152) "\57\04\00\00\04\00\00\00\5b\04\00\00\17\00\00\00\c2\04\00\00\11\00\00\00\00\00\00\00")
  ;; definition spin
  (data (i32.const 4180) "\72\04\00\00\04\00\00\00\76\04\00\00\0d\00\00\00\c2\04\00\00\11\00\00\00\00\00\00\00")
  ;; definition grow
  (data (i32.const 4208) "\83\04\00\00\04\00\00\00\87\04\00\00\23\00\00\00\c2\04\00\00\11\00\00\00\00\00\00\00")
  ;; definition trap
  (data (i32.const 4236) "\aa\04\00\00\04\00\00\00\ae\04\00\00\14\00\00\00\c2\04\00\00\11\00\00\00\00\00\00\00")
)
