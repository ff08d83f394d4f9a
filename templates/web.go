package templates

import (
	"embed"
	"io/fs"
)

//go:embed web/*.html
var web embed.FS

// Web returns the pages of the web part (engine/web): html/template files,
// one per page, and layout.html, the frame every page is drawn in. They
// are separate from the mail texts because a page and a mail differ in all
// but the game they show (a page has a stylesheet, links and a script; a
// mail part has inline styles only), and an operator's templates_dir
// overrides only the mails.
// The files are under web/ in the returned file system.
func Web() fs.FS { return web }
