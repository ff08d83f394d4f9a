package games

// Boardspace is an add-on a game's Rules may offer (found with a type
// assertion): its records in the SGF dialect of boardspace.net, which
// archives games of both LYNGK and YINSH and whose viewer and other programs
// read them. Package record writes and reads the file around the steps; the
// game says what its moves are in boardspace's words.
//
// A step is the text of one of boardspace's move nodes without its running
// number: "place wr  G 11", "move G 9 F 9", "Claim R F". Boardspace writes a
// step per node and a "Done" node after each; the "Start", "Done" and
// "Resign" nodes are the record's, not the game's.
type Boardspace interface {
	Rules
	// BoardspaceHeader is what the record says of the game: its GM and
	// SU values in variant and the text of its first node ("Start White").
	BoardspaceHeader(variant string) (gm, su, start string)
	// BoardspaceVariant reads an SU value back: the variant it names, ok
	// false when it names none of the game's.
	BoardspaceVariant(su string) (variant string, ok bool)
	// BoardspaceSteps are the steps of move, an entry of the record in
	// the game's normalised notation, made by player (1 or 2); none for
	// the automatic pass.
	BoardspaceSteps(move string, player int) ([]string, error)
	// BoardspaceMove reads the steps of one turn of one player back into
	// the game's notation. Errors say which step is wrong and why.
	BoardspaceMove(steps []string, player int) (string, error)
}
