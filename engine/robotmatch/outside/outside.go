// Package outside plays an outside YINSH program as a robot (games.Robot)
// of the strength benchmark (engine/robotmatch), so that the server's robot
// can be measured against programs that are not ours. The program runs as a
// child process and speaks on its standard input and output the line
// protocol of the YINSH bots of a university course on artificial
// intelligence (several are public, in C++ and other languages), which
// this package translates to and from our notation.
//
// # The protocol
//
// The program first reads one line, "id 5 t 5": its player number (1
// moves first, as white does in our notation), the board's size (5: rings
// of points 0..5 around the centre, 5 rings each), a time limit in seconds
// for its whole game (many programs ignore it), and the length of a row
// (5). Then player 1 writes its first turn; from there on each side's turn
// is one line, the program writing its own and reading the other's. A turn
// is words of a keyword and two numbers, a point (see below), in the order
// of the turn:
//
//	P h p              places a ring at h p
//	S h p M h p        selects the ring at h p and moves it to h p
//	RS h p RE h p X h p  removes the row from RS to RE and the ring at X
//
// A turn's removals before its move are the rows the opponent's move made
// for the mover; those after it are the rows of the mover's own move; a
// turn may also be removals alone (the mover then cannot move). The
// protocol has no pass: a game where one comes ends the program's game
// with ErrProtocol.
//
// # The coordinates
//
// A point is h p: ring h around the centre (0 is the centre, f6; 5 is the
// edge, whose six corners are not points), and position p on it, 0 to
// 6h-1, clockwise from north. Position k*h is h steps from the centre in
// direction k, the directions in order north (up a column: f6 to f7),
// north-east (along the diagonal: f6 to g7), south-east (along the row: f6
// to g6), south, south-west and north-west; the h-1 positions after it
// follow the ring's side towards direction k+2. So 1 0 is f7, 1 1 is g7,
// 1 2 is g6, 5 1 is g11 and 4 6 is j8. Any of the board's twelve
// symmetries would do, as long as both sides agree; this one keeps our
// columns vertical.
//
// # What is trusted
//
// Nothing: the translated turn goes back to the match, which reads it by
// the rules and refuses an illegal one (robotmatch.Player.Forfeits turns
// that into a lost game). A line that is no turn of the protocol, a
// program that exits, or one that answers nothing within Program.Turn, is
// an error of Think, which loses the game the same way.
package outside

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/yinsh"
)

// Program is an outside YINSH program behind the protocol. It keeps one
// process per player number it is asked to play, with the record it has
// seen: a position that continues that record gets only the turns since,
// any other starts the process anew (a new game). It is safe for one
// match at a time; Close stops the processes.
type Program struct {
	// Command is the program and its arguments.
	Command []string
	// Limit is the time limit in seconds told to the program for its whole
	// game (the protocol's third number); 0 says 150.
	Limit int
	// Turn is the most wall time a turn may take before the program is
	// stopped and Think fails; 0 is one minute.
	Turn time.Duration
	// Stderr gets the program's standard error; nil discards it.
	Stderr io.Writer

	mu    sync.Mutex
	procs [2]*proc
	stats Stats
}

// Stats is what the program's turns took: wall time from our line to its
// answer, and its CPU (Linux /proc; 0 elsewhere), in all and the most.
type Stats struct {
	Turns           int
	Wall, MaxWall   time.Duration
	CPU, MaxCPU     time.Duration
	Starts, Crashes int // processes started; those that failed a turn
}

// proc is one running program: its pipes, the lines it wrote, the record
// it has seen (our notation, the last entry its own turn).
type proc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
	seen  []string
}

var _ games.Robot = (*Program)(nil)

// Think sends the program the turns played since it last moved and
// returns its answer, translated. The move is a text the caller's rules
// read (robotmatch does); an answer that is no turn of the protocol is
// ErrProtocol. The budget is not the program's: it thinks as it was
// written to (some take Limit into account), and the benchmark gives our
// robot the time the program was measured to take.
func (o *Program) Think(ctx context.Context, p games.Position, _ games.Think) (games.Thought, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	g, ok := yinsh.Of(p)
	if !ok {
		return games.Thought{}, fmt.Errorf("outside: not a YINSH position: %T", p)
	}
	if g.Variant() != yinsh.Normal {
		return games.Thought{}, fmt.Errorf("%w: the protocol plays the normal game only", ErrProtocol)
	}
	me := p.Turn()
	if me != 1 && me != 2 {
		return games.Thought{}, fmt.Errorf("outside: the game is over")
	}
	record := p.Moves()
	pr := o.procs[me-1]
	if pr == nil || len(record) <= len(pr.seen) || !slices.Equal(record[:len(pr.seen)], pr.seen) {
		o.stop(me)
		// The other side's process, if it is of another game, waits for
		// nothing more: a new game has begun.
		if other := o.procs[2-me]; other != nil && (len(record) < len(other.seen) || !slices.Equal(record[:len(other.seen)], other.seen)) {
			o.stop(3 - me)
		}
		var err error
		if pr, err = o.start(me); err != nil {
			return games.Thought{}, err
		}
	}
	var send []string
	for _, t := range record[len(pr.seen):] {
		line, err := ToProgram(t)
		if err != nil {
			o.fail(me)
			return games.Thought{}, err
		}
		send = append(send, line)
	}
	if len(send) > 1 {
		o.fail(me)
		return games.Thought{}, fmt.Errorf("%w: %d turns of the opponent in a row", ErrProtocol, len(send))
	}
	line, wall, cpu, err := o.exchange(ctx, pr, send)
	if err != nil {
		o.fail(me)
		return games.Thought{}, err
	}
	o.stats.Turns++
	o.stats.Wall += wall
	o.stats.MaxWall = max(o.stats.MaxWall, wall)
	o.stats.CPU += cpu
	o.stats.MaxCPU = max(o.stats.MaxCPU, cpu)
	turn, err := FromProgram(line)
	if err != nil {
		o.fail(me)
		return games.Thought{}, err
	}
	pr.seen = append(record, turn)
	return games.Thought{Move: text(turn)}, nil
}

// text is a move as the program wrote it, translated: the rules read it.
type text string

func (t text) String() string { return string(t) }

// AcceptDraw: an outside program is asked nothing but its turns.
func (o *Program) AcceptDraw(games.Position, int) bool { return false }

// Stats is what the program's turns took so far.
func (o *Program) Stats() Stats {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.stats
}

// Close stops the program's processes.
func (o *Program) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.stop(1)
	o.stop(2)
	return nil
}

// start runs the program as player me and tells it the game.
func (o *Program) start(me int) (*proc, error) {
	if len(o.Command) == 0 {
		return nil, errors.New("outside: no program to run")
	}
	cmd := exec.Command(o.Command[0], o.Command[1:]...)
	cmd.Stderr = o.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("outside: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("outside: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("outside: %w", err)
	}
	o.stats.Starts++
	pr := &proc{cmd: cmd, in: in, lines: make(chan string, 4)}
	go func() {
		s := bufio.NewScanner(out)
		s.Buffer(make([]byte, 4096), 1<<16) // a turn is a few dozen bytes
		for s.Scan() {
			pr.lines <- s.Text()
		}
		close(pr.lines)
	}()
	limit := o.Limit
	if limit <= 0 {
		limit = 150
	}
	if _, err := fmt.Fprintf(in, "%d %d %d %d\n", me, radius, limit, 5); err != nil {
		o.procs[me-1] = pr
		o.stop(me)
		return nil, fmt.Errorf("outside: %w", err)
	}
	o.procs[me-1] = pr
	return pr, nil
}

// exchange writes the lines and waits for the program's next non-empty
// line, measuring the wait and the CPU the process used meanwhile.
func (o *Program) exchange(ctx context.Context, pr *proc, send []string) (line string, wall, cpu time.Duration, err error) {
	turn := o.Turn
	if turn <= 0 {
		turn = time.Minute
	}
	timer := time.NewTimer(turn)
	defer timer.Stop()
	cpu0 := procCPU(pr.cmd.Process.Pid)
	start := time.Now()
	for _, l := range send {
		if _, err := io.WriteString(pr.in, l+"\n"); err != nil {
			return "", 0, 0, fmt.Errorf("outside: the program stopped reading: %w", err)
		}
	}
	for {
		select {
		case l, ok := <-pr.lines:
			if !ok {
				return "", 0, 0, errors.New("outside: the program exited")
			}
			if strings.TrimSpace(l) == "" {
				continue
			}
			return l, time.Since(start), procCPU(pr.cmd.Process.Pid) - cpu0, nil
		case <-timer.C:
			return "", 0, 0, fmt.Errorf("outside: no turn from the program within %v", turn)
		case <-ctx.Done():
			return "", 0, 0, ctx.Err()
		}
	}
}

// fail stops player me's process after a failed turn.
func (o *Program) fail(me int) {
	o.stats.Crashes++
	o.stop(me)
}

// stop ends player me's process, if any.
func (o *Program) stop(me int) {
	pr := o.procs[me-1]
	if pr == nil {
		return
	}
	o.procs[me-1] = nil
	pr.in.Close()
	pr.cmd.Process.Kill()
	go func() {
		for range pr.lines { // let the reader finish
		}
	}()
	pr.cmd.Wait()
}

// clockTicks is Linux's USER_HZ, the unit of /proc/PID/stat's times: 100
// on every architecture the kernel supports today.
const clockTicks = 100

// procCPU is the CPU time process pid has used (user and system), read
// from /proc; 0 where there is no /proc.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: fields count
	// from after its closing parenthesis, where field 3 (state) starts.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * time.Second / clockTicks
}
