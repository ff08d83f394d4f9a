package draw

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"hash/maphash"
	"image"
	"image/color"
	"slices"
	"sync"

	flate "github.com/klauspost/compress/flate"

	"lyngk.example/lyngk/engine/bounded"
)

// Encoder writes paletted pictures as PNG: indexed colour at the smallest
// bit depth the palette allows (4 bits for 16 colours), no filter (filters
// do not help indices), one IDAT chunk. The rows are compressed in bands,
// each on its own (a band's deflate blocks refer to nothing before it and
// end on a byte boundary), so that the compressed bytes of a band can be
// kept and reused by any picture with the same band: a band is compressed
// once, however many pictures show it. Bands cost a little size (each
// starts with an empty window), which a band height of a few dozen rows
// keeps to a few per cent.
//
// Bands are found by the 128-bit hash of their indices (two maphash
// sums); the cache holds about its budget in bytes.
//
// Deflate is klauspost/compress/flate's: at level 6 it spends on a band
// about what Go's compress/flate spends at level 1, and LYNGK's pictures
// are 13% smaller (BenchmarkPNG/server).
type Encoder struct {
	first, rows int
	level       int
	bands       *bounded.Cache[band]
	works       sync.Pool
	seeds       [2]maphash.Seed
}

// band is a band's compressed bytes, the Adler-32 of its raw bytes and
// their number.
type band struct {
	z     []byte
	adler uint32
	n     int
}

// NewEncoder makes an encoder compressing at zlib level (1–9) bands of
// rows rows, the first one first rows high (so that a game can make its
// bands follow its layout), keeping about budget bytes of compressed
// bands.
func NewEncoder(first, rows, level, budget int) *Encoder {
	return &Encoder{
		first: first, rows: rows, level: level,
		bands: bounded.New(budget, func(b band) int { return len(b.z) + 64 }),
		seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()},
	}
}

// Bands returns how many bands were found compressed and how many were
// compressed.
func (e *Encoder) Bands() (reused, compressed int) { return e.bands.Stats() }

// work is one encoding's buffers, pooled.
type work struct {
	raw  []byte
	z    bytes.Buffer
	fw   *flate.Writer
	key  []byte
	sums [2]maphash.Hash
}

// Depth is the bit depth of a picture of n colours.
func Depth(n int) int {
	switch {
	case n <= 2:
		return 1
	case n <= 4:
		return 2
	case n <= 16:
		return 4
	}
	return 8
}

// Encode returns p as a PNG. It is safe for concurrent use.
func (e *Encoder) Encode(p *image.Paletted) ([]byte, error) {
	wk, _ := e.works.Get().(*work)
	if wk == nil {
		wk = &work{}
		fw, err := flate.NewWriter(&wk.z, e.level)
		if err != nil {
			return nil, fmt.Errorf("draw: png: %w", err)
		}
		wk.fw = fw
	}
	defer e.works.Put(wk)
	w, h := p.Rect.Dx(), p.Rect.Dy()
	depth := Depth(len(p.Palette))
	stride := 1 + (w*depth+7)/8
	// The zlib stream: its header, the bands' deflate blocks, an empty
	// final block, the Adler-32 of all rows.
	idat := []byte{0x78, 0x01}
	adler := uint32(1)
	for y0, y1 := 0, min(e.first, h); y0 < h; y0, y1 = y1, min(y1+e.rows, h) {
		for i := range wk.sums {
			wk.sums[i].SetSeed(e.seeds[i])
			for y := y0; y < y1; y++ {
				o := p.PixOffset(p.Rect.Min.X, p.Rect.Min.Y+y)
				wk.sums[i].Write(p.Pix[o : o+w])
			}
		}
		wk.key = binary.LittleEndian.AppendUint64(wk.key[:0], wk.sums[0].Sum64())
		wk.key = binary.LittleEndian.AppendUint64(wk.key, wk.sums[1].Sum64())
		wk.key = binary.LittleEndian.AppendUint32(wk.key, uint32(w)<<8|uint32(depth))
		b, ok := e.bands.Lookup(string(wk.key))
		if !ok {
			wk.raw = slices.Grow(wk.raw[:0], (y1-y0)*stride)[:(y1-y0)*stride]
			for y := y0; y < y1; y++ {
				o := p.PixOffset(p.Rect.Min.X, p.Rect.Min.Y+y)
				packRow(wk.raw[(y-y0)*stride:(y-y0+1)*stride], p.Pix[o:o+w], depth)
			}
			wk.z.Reset()
			wk.fw.Reset(&wk.z)
			if _, err := wk.fw.Write(wk.raw); err != nil {
				return nil, fmt.Errorf("draw: png: %w", err)
			}
			if err := wk.fw.Flush(); err != nil {
				return nil, fmt.Errorf("draw: png: %w", err)
			}
			b = band{z: bytes.Clone(wk.z.Bytes()), adler: adler32.Checksum(wk.raw), n: len(wk.raw)}
			e.bands.Put(string(wk.key), b)
		}
		idat = append(idat, b.z...)
		adler = adlerCombine(adler, b.adler, b.n)
	}
	idat = append(idat, 0x03, 0x00) // a final block of fixed codes holding only its end
	idat = binary.BigEndian.AppendUint32(idat, adler)

	out := make([]byte, 0, len(pngSignature)+4*12+13+3*len(p.Palette)+len(idat))
	out = append(out, pngSignature...)
	ihdr := binary.BigEndian.AppendUint32(nil, uint32(w))
	ihdr = binary.BigEndian.AppendUint32(ihdr, uint32(h))
	ihdr = append(ihdr, byte(depth), 3, 0, 0, 0) // indexed colour, deflate, no filter, no interlace
	out = chunk(out, "IHDR", ihdr)
	plte := make([]byte, 0, 3*len(p.Palette))
	for _, c := range p.Palette {
		rgba := color.RGBAModel.Convert(c).(color.RGBA)
		plte = append(plte, rgba.R, rgba.G, rgba.B)
	}
	out = chunk(out, "PLTE", plte)
	out = chunk(out, "IDAT", idat)
	return chunk(out, "IEND", nil), nil
}

// packRow writes a row's filter type (0, None) and its indices at depth
// bits each into dst.
func packRow(dst, idx []uint8, depth int) {
	dst[0] = 0
	dst = dst[1:]
	switch depth {
	case 8:
		copy(dst, idx)
	case 4:
		// Eight indices at a time: with p0 in the lowest byte of v,
		// (v<<4 | v>>8) holds p0<<4|p1 in byte 0, p2<<4|p3 in byte 2
		// and so on; the masks and shifts gather those four bytes.
		i := 0
		for ; i+8 <= len(idx); i += 8 {
			v := binary.LittleEndian.Uint64(idx[i:]) & 0x0F0F0F0F0F0F0F0F
			v = (v<<4 | v>>8) & 0x00FF00FF00FF00FF
			v = (v | v>>8) & 0x0000FFFF0000FFFF
			v = v | v>>16
			binary.LittleEndian.PutUint32(dst[i/2:], uint32(v))
		}
		for ; i+1 < len(idx); i += 2 {
			dst[i/2] = idx[i]<<4 | idx[i+1]&0x0F
		}
		if len(idx)%2 == 1 {
			dst[i/2] = idx[i] << 4
		}
	default:
		clear(dst)
		per := 8 / depth
		for x, v := range idx {
			dst[x/per] |= v << (8 - depth*(x%per+1))
		}
	}
}

// adlerCombine is the Adler-32 of a stream of Adler-32 a1 followed by n
// bytes of Adler-32 a2 (zlib's adler32_combine).
func adlerCombine(a1, a2 uint32, n int) uint32 {
	const base = 65521
	rem := uint32(n % base)
	sum1 := a1 & 0xFFFF
	sum2 := (rem * sum1) % base
	sum1 += (a2 & 0xFFFF) + base - 1
	sum2 += (a1 >> 16) + (a2 >> 16) + base - rem
	if sum1 >= base {
		sum1 -= base
	}
	if sum1 >= base {
		sum1 -= base
	}
	if sum2 >= base<<1 {
		sum2 -= base << 1
	}
	if sum2 >= base {
		sum2 -= base
	}
	return sum2<<16 | sum1
}

const pngSignature = "\x89PNG\r\n\x1a\n"

// chunk appends a PNG chunk to b.
func chunk(b []byte, kind string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	start := len(b)
	b = append(b, kind...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}
