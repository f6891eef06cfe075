/// A shared option's help in one command: the option is declared once and does the same in
/// every command; its help says what that is for the command.
package protocol OptionHelp {
    static var help: String { get }
}
