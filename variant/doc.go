// Package variant reads and writes Parquet's Variant binary encoding (the
// values of an Iceberg format 3 `variant` column) as JSON text.
//
// A variant is two byte strings, a metadata and a value. The metadata is a
// dictionary of the object keys the value uses:
//
//	metadata  header      1 byte: version (bits 0-3, = 1) | sorted_strings (bit 4)
//	                              | offset_size_minus_one (bits 6-7)
//	          dict_size   offset_size bytes, little-endian
//	          offsets     dict_size+1 × offset_size bytes, into bytes (first 0, last len(bytes))
//	          bytes       the keys' UTF-8, one after the other
//
// The value is one byte of type then its data, recursively:
//
//	value     header      1 byte: basic_type (bits 0-1) | value_header (bits 2-7)
//	  basic_type 0 primitive     value_header is the type id; data by id:
//	                             0 null, 1 true, 2 false (no data); 3-6 int8/16/32/64;
//	                             7 double; 8/9/10 decimal4/8/16 (1 byte scale, then the
//	                             unscaled 4/8/16 bytes); 11 date (int32 days);
//	                             12/13 timestamp micros with/without zone; 14 float;
//	                             15 binary, 16 string (4-byte length, bytes); 17 time
//	                             micros; 18/19 timestamp nanos with/without zone;
//	                             20 uuid (16 bytes, big-endian). All little-endian else.
//	  basic_type 1 short string  value_header is the length (0-63); the UTF-8 follows
//	  basic_type 2 object        value_header: offset_size-1 (bits 0-1), id_size-1
//	                             (bits 2-3), is_large (bit 4). Data:
//	                             n (1 byte, 4 if is_large) | n field ids (id_size each,
//	                             into the dictionary, in the order of their keys sorted
//	                             bytewise) | n+1 offsets (offset_size each, from the
//	                             first value's byte; the last is the values' size) |
//	                             the n values, in any order
//	  basic_type 3 array         value_header: offset_size-1 (bits 0-1), is_large (bit 2).
//	                             Data: n | n+1 offsets | the n values in order
//
// In Parquet the column is a group annotated VARIANT holding `required
// binary metadata` and `required binary value` (unshredded; a shredded
// variant adds `typed_value`, which Timelake refuses).
//
// # JSON
//
// AppendJSON prints a variant as compact JSON: an object's members in the
// order of their keys (the encoding's order), integers and decimals as
// numbers (a decimal with its scale's digits: 1.50), doubles and floats in
// the shortest form that reads back the same number (ES6's, as
// JSON.stringify prints it; NaN and ±Infinity, which JSON lacks, as the
// strings "NaN", "+Inf" and "-Inf"), and the types JSON has no form for as
// strings: a date as 2024-03-01, a timestamp as 2024-03-01T12:00:00.000000
// (9 fraction digits in nanoseconds; a trailing Z with a zone), a time as
// 12:00:00.000000, binary in standard base64, a uuid in its 8-4-4-4-12 hex.
//
// Encode reads JSON text into a variant the way Spark's parse_json does:
// an integer literal is the smallest of int8 to int64 that holds it; a
// number with a fraction but no exponent, of at most 38 digits, a
// decimal (decimal4, 8 or 16 by its precision) with the literal's scale;
// any other number a double. Strings under 64 bytes are short strings;
// the dictionary is every key once, sorted bytewise, and objects list
// their fields in key order. So the JSON AppendJSON prints is read back by
// Encode into a variant that AppendJSON prints the same text of.
//
// Both are bounded against hostile input: nesting at most MaxDepth deep,
// every offset, length and id checked against the bytes that hold it, and
// the JSON printed at most MaxJSON bytes (offsets may point many fields at
// one value, so the text could otherwise grow exponentially).
package variant
