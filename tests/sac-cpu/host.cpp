// A host of StackAndConquer CPU scripts, as the app runs them: each script
// player gets its own QJSEngine, a global `game` object with the app's
// getters, `initCPU(emptyBoard)` once, then `callCPU(board)` on each of its
// turns, every answer checked against the legal moves the host gave. The
// referee is written here from the rules (docs/rules/mixtour.md and the
// app's differences in docs/stackandconquer.md), apart from stackfish's
// Rust code: the padded board, the legal list in the app's order, the
// take-back that stays forbidden after a pass, towers at height 5, and with
// three players the "suicide" moves left out.
//
//   host SCRIPT games BOARD.in TOWERS PLAYERS GAMES SEED   whole games against random movers
//   host SCRIPT call CASE.json                              one call on a position, checked
//   host SCRIPT bench                                       the Mixtour part of bench, timed
//
// Exits 1 on any failure: an exception, a move not in the legal list, a
// case's expectation not met, a QJSEngine warning that a variable is used
// before its declaration.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QJSEngine>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVariant>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <vector>

static int used_before_declaration = 0;

static void on_message(QtMsgType, const QMessageLogContext &, const QString &text) {
    if (text.contains("used before its declaration")) {
        used_before_declaration++;
    }
    fprintf(stderr, "qt: %s\n", qPrintable(text));
}

[[noreturn]] static void fail(const std::string &why) {
    fprintf(stderr, "FAIL: %s\n", why.c_str());
    exit(1);
}

// Seconds of CPU the process has used: what a move costs whatever else
// the machine runs (the wall time is printed beside it).
static double cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static const int HEIGHT = 5;  // a tower scores at this height; also the padding

// A move as the app writes it: [from, count, to]; a placement has from -1.
struct Move {
    int from, count, to;
    bool operator==(const Move &o) const { return from == o.from && count == o.count && to == o.to; }
};

// The game as the app keeps it: the padded board of strings.
struct State {
    int cols = 0, rows = 0, players = 2;
    std::vector<std::string> cells;  // "-" padding, "#" hole, "" empty, digits bottom to top
    std::vector<int> stones, needed;
    int current = 1;                  // 1-based
    std::vector<int> last;            // the last tower move, [] at the start and after a placement

    int width() const { return cols + 2 * HEIGHT; }
    bool on_board(int i) const {
        return i >= 0 && i < (int)cells.size() && cells[i] != "-" && cells[i] != "#";
    }

    // The legal moves of the player to move, ordered as the app lists them:
    // by target cell, then source, then count.
    std::vector<Move> legal() const {
        std::vector<Move> moves;
        const int dirs[8] = {-width() - 1, -width(), -width() + 1, -1, 1, width() - 1, width(), width() + 1};
        for (int to = 0; to < (int)cells.size(); to++) {
            if (!on_board(to)) continue;
            int h = (int)cells[to].size();
            if (h == 0) {
                if (stones[current - 1] > 0) moves.push_back({-1, 1, to});
                continue;
            }
            // A source h cells away in a straight line, the cells between empty.
            std::vector<Move> here;
            for (int d : dirs) {
                int at = to;
                bool clear = true;
                for (int k = 1; k < h; k++) {
                    at += d;
                    if (!on_board(at) || !cells[at].empty()) { clear = false; break; }
                }
                if (!clear) continue;
                int from = at + d;
                if (!on_board(from) || cells[from].empty()) continue;
                int height = (int)cells[from].size();
                for (int n = 1; n <= height; n++) {
                    // The take-back of the last tower move is forbidden.
                    if (last.size() == 3 && last[2] == from && last[1] == n && last[0] == to) continue;
                    // Three players: no move that completes another player's tower.
                    int top = cells[from].back() - '0';
                    if (players == 3 && h + n >= HEIGHT && top != current) continue;
                    here.push_back({from, n, to});
                }
            }
            std::sort(here.begin(), here.end(), [](const Move &a, const Move &b) {
                return a.from != b.from ? a.from < b.from : a.count < b.count;
            });
            moves.insert(moves.end(), here.begin(), here.end());
        }
        return moves;
    }

    // Plays a legal move; returns the player who scored a tower, or 0.
    int play(const Move &m) {
        if (m.from < 0) {
            cells[m.to] += char('0' + current);
            stones[current - 1]--;
            last.clear();
            return 0;
        }
        std::string &from = cells[m.from];
        std::string moved = from.substr(from.size() - m.count);
        from.erase(from.size() - m.count);
        cells[m.to] += moved;
        last = {m.from, m.count, m.to};
        if ((int)cells[m.to].size() < HEIGHT) return 0;
        int owner = cells[m.to].back() - '0';
        for (char c : cells[m.to]) stones[c - '1']++;
        cells[m.to].clear();
        needed[owner - 1]--;
        return owner;
    }

    QString board_json() const {
        QJsonArray a;
        for (const auto &c : cells) a.append(QString::fromStdString(c));
        return QString::fromUtf8(QJsonDocument(a).toJson(QJsonDocument::Compact));
    }
};

static QString moves_json(const std::vector<Move> &moves) {
    QJsonArray a;
    for (const auto &m : moves) a.append(QJsonArray{m.from, m.count, m.to});
    return QString::fromUtf8(QJsonDocument(a).toJson(QJsonDocument::Compact));
}

// A board source (.in): line 1 the stones per number of players, then rows
// of 0 (playable) and # (not part of the board), top row first.
static State read_in_text(const QString &text, int towers, int players) {
    QStringList lines = text.split('\n');
    QStringList counts = lines.value(0).split(',', Qt::SkipEmptyParts);
    int stones = counts.value(players - 2).trimmed().toInt();
    std::vector<std::vector<bool>> grid;
    for (int i = 1; i < lines.size() && !lines[i].trimmed().isEmpty(); i++) {
        QStringList row = lines[i].split(',', Qt::SkipEmptyParts);
        std::vector<bool> cells;
        for (auto &c : row) cells.push_back(c.trimmed() == "0");
        grid.push_back(cells);
    }
    State s;
    s.rows = (int)grid.size();
    s.cols = (int)grid[0].size();
    s.players = players;
    s.cells.assign(s.width() * (s.rows + 2 * HEIGHT), "-");
    for (int r = 0; r < s.rows; r++)
        for (int c = 0; c < s.cols; c++)
            s.cells[(r + HEIGHT) * s.width() + c + HEIGHT] = grid[r][c] ? "" : "#";
    s.stones.assign(players, stones);
    s.needed.assign(players, towers);
    return s;
}

static State read_in(const QString &path, int towers, int players) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) fail("cannot open " + path.toStdString());
    return read_in_text(QString::fromUtf8(f.readAll()), towers, players);
}

// The app's `game` object. Each getter reads the live state; a case may
// replace what a getter returns (`overrides`), as a hand-edited board file
// or another version of the app might.
class Game : public QObject {
    Q_OBJECT
public:
    State *state = nullptr;
    QJsonObject overrides;
    QStringList logged;

    QVariant over(const char *key, const QVariant &value) const {
        return overrides.contains(key) ? overrides.value(key).toVariant() : value;
    }
    static QVariantList list(const std::vector<int> &v) {
        QVariantList l;
        for (int x : v) l.append(x);
        return l;
    }

    Q_INVOKABLE QVariant getID() const { return over("id", state->current); }
    Q_INVOKABLE QVariant getNumOfPlayers() const { return over("players", state->players); }
    Q_INVOKABLE QVariant getHeightToWin() const { return over("height", HEIGHT); }
    Q_INVOKABLE QVariant getTowersNeededToWin() const { return over("towers", list(state->needed)); }
    Q_INVOKABLE QVariant getNumberOfStones() const { return over("stones", list(state->stones)); }
    Q_INVOKABLE QVariant getLastMove() const { return over("last", list(state->last)); }
    Q_INVOKABLE QVariant getLegalMoves() const { return over("legal", moves_json(state->legal())); }
    Q_INVOKABLE QVariant getBoardDimensionX() const { return over("columns", state->cols); }
    Q_INVOKABLE QVariant getBoardDimensionY() const { return over("rows", state->rows); }
    Q_INVOKABLE QString getOutside() const { return "#"; }
    Q_INVOKABLE QString getPadding() const { return "-"; }
    Q_INVOKABLE void log(const QString &text) {
        logged.append(text);
        printf("  log: %s\n", qPrintable(text));
    }
};

// One script player: its engine, loaded as the app loads it.
struct Player {
    QJSEngine engine;
    Game game;
    double load_s = 0, init_s = 0, load_cpu_s = 0;

    Player(const QString &script, State *state) {
        game.state = state;
        engine.globalObject().setProperty("game", engine.newQObject(&game));
        QJSEngine::setObjectOwnership(&game, QJSEngine::CppOwnership);
        QFile f(script);
        if (!f.open(QIODevice::ReadOnly)) fail("cannot open " + script.toStdString());
        QString code = QString::fromUtf8(f.readAll());
        QElapsedTimer t;
        double c0 = cpu_seconds();
        t.start();
        QJSValue r = engine.evaluate(code, script);
        load_s = t.nsecsElapsed() / 1e9;
        if (r.isError()) fail("evaluating the script: " + r.toString().toStdString());
        QJSValue init = engine.globalObject().property("initCPU");
        if (init.isCallable()) {
            State empty = *state;
            for (auto &c : empty.cells)
                if (c != "-" && c != "#") c = "";
            t.restart();
            QJSValue r2 = init.call({empty.board_json()});
            init_s = t.nsecsElapsed() / 1e9;
            if (r2.isError()) fail("initCPU threw: " + r2.toString().toStdString());
        }
        load_cpu_s = cpu_seconds() - c0;
    }

    // callCPU on the live state (or `board`, given as is); the answer must
    // be an array of three whole numbers in `legal`.
    double cpu_s = 0;  // CPU seconds of the last call

    Move call(const QString &board, const std::vector<Move> &legal, double *seconds) {
        QJSValue f = engine.globalObject().property("callCPU");
        if (!f.isCallable()) fail("the script defines no callCPU");
        QElapsedTimer t;
        double c0 = cpu_seconds();
        t.start();
        QJSValue r = f.call({board});
        *seconds = t.nsecsElapsed() / 1e9;
        cpu_s = cpu_seconds() - c0;
        if (r.isError()) fail("callCPU threw: " + r.toString().toStdString());
        if (!r.isArray() || r.property("length").toInt() != 3)
            fail("callCPU returned " + r.toString().toStdString() + ", not [from, count, to]");
        Move m{r.property(0).toInt(), r.property(1).toInt(), r.property(2).toInt()};
        if (std::find(legal.begin(), legal.end(), m) == legal.end())
            fail("callCPU returned [" + std::to_string(m.from) + ", " + std::to_string(m.count) + ", " +
                 std::to_string(m.to) + "], not in the legal list " + moves_json(legal).toStdString());
        return m;
    }
};

struct Times {
    int n = 0;
    double sum = 0, max = 0;
    void add(double s) { n++; sum += s; max = std::max(max, s); }
};

static int run_games(const QString &script, const QString &board, int towers, int players, int games,
                     unsigned seed) {
    std::mt19937 rng(seed);
    Times moves, loads, moves_cpu, loads_cpu;
    int wins = 0, losses = 0, unfinished = 0;
    for (int g = 0; g < games; g++) {
        State s = read_in(board, towers, players);
        int seat = 1 + g % players;  // the script's seat, turn about
        Player cpu(script, &s);
        loads.add(cpu.load_s + cpu.init_s);
        loads_cpu.add(cpu.load_cpu_s);
        printf("game %d: the script is player %d of %d on %s, %d tower(s) to win; loaded in %.2f s + initCPU %.2f s "
               "(%.2f s CPU)\n",
               g + 1, seat, players, qPrintable(board), towers, cpu.load_s, cpu.init_s, cpu.load_cpu_s);
        int winner = 0, plies = 0, passes = 0;
        Times mine;
        while (winner == 0 && plies < 600) {
            std::vector<Move> legal = s.legal();
            if (legal.empty()) {
                // A pass: the last tower move stays, and with it its take-back's ban.
                if (++passes >= players) break;
                s.current = s.current % players + 1;
                continue;
            }
            passes = 0;
            Move m;
            if (s.current == seat) {
                double secs = 0;
                m = cpu.call(s.board_json(), legal, &secs);
                mine.add(secs);
                moves.add(secs);
                moves_cpu.add(cpu.cpu_s);
            } else {
                m = legal[std::uniform_int_distribution<size_t>(0, legal.size() - 1)(rng)];
            }
            int scorer = s.play(m);
            if (scorer && s.needed[scorer - 1] == 0) winner = scorer;
            s.current = s.current % players + 1;
            plies++;
        }
        if (winner == seat) wins++;
        else if (winner) losses++;
        else unfinished++;
        printf("game %d: %s after %d plies; %d script moves, mean %.2f s, max %.2f s\n", g + 1,
               winner == seat ? "the script won" : winner ? "a random mover won" : "no winner",
               plies, mine.n, mine.n ? mine.sum / mine.n : 0.0, mine.max);
    }
    printf("games: %d, script won %d, lost %d, unfinished %d; %d script moves, mean %.2f s, max %.2f s "
           "(CPU mean %.2f s, max %.2f s); load + initCPU mean %.2f s, max %.2f s (CPU mean %.2f s, max %.2f s)\n",
           games, wins, losses, unfinished, moves.n, moves.n ? moves.sum / moves.n : 0.0, moves.max,
           moves_cpu.n ? moves_cpu.sum / moves_cpu.n : 0.0, moves_cpu.max, loads.sum / std::max(loads.n, 1),
           loads.max, loads_cpu.sum / std::max(loads_cpu.n, 1), loads_cpu.max);
    return 0;
}

// A case: a position (grid rows top first, cells "" empty, "#" hole, or a
// stack of digits), the getters' values, overrides, and what must happen.
static int run_case(const QString &script, const QString &path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) fail("cannot open " + path.toStdString());
    QJsonObject c = QJsonDocument::fromJson(f.readAll()).object();
    if (c.isEmpty()) fail(path.toStdString() + " is not a JSON object");
    printf("case %s: %s\n", qPrintable(path), qPrintable(c.value("what").toString()));
    QJsonArray grid = c.value("grid").toArray();
    State s;
    s.rows = grid.size();
    s.cols = grid.at(0).toArray().size();
    s.players = c.value("players").toInt(2);
    s.cells.assign(s.width() * (s.rows + 2 * HEIGHT), "-");
    for (int r = 0; r < s.rows; r++)
        for (int col = 0; col < s.cols; col++)
            s.cells[(r + HEIGHT) * s.width() + col + HEIGHT] =
                grid.at(r).toArray().at(col).toString().toStdString();
    for (auto v : c.value("stones").toArray()) s.stones.push_back(v.toInt());
    for (auto v : c.value("towers").toArray()) s.needed.push_back(v.toInt());
    s.current = c.value("current").toInt(1);
    // `last` in grid terms: [[row, column], count, [row, column]], rows and
    // columns from 0 at the top left.
    QJsonArray last = c.value("last").toArray();
    auto index = [&](const QJsonValue &rc) {
        QJsonArray a = rc.toArray();
        return (a.at(0).toInt() + HEIGHT) * s.width() + a.at(1).toInt() + HEIGHT;
    };
    if (last.size() == 3) s.last = {index(last.at(0)), last.at(1).toInt(), index(last.at(2))};
    Player cpu(script, &s);
    cpu.game.overrides = c.value("override").toObject();
    // The legal moves the script must choose from: the referee's, or the
    // case's own list (given in padded indices) when it overrides it.
    std::vector<Move> legal = s.legal();
    if (cpu.game.overrides.contains("legal")) {
        legal.clear();
        QJsonArray a = QJsonDocument::fromJson(cpu.game.overrides.value("legal").toString().toUtf8()).array();
        for (auto v : a) legal.push_back({v[0].toInt(), v[1].toInt(), v[2].toInt()});
    }
    QString board = c.contains("board_text") ? c.value("board_text").toString() : s.board_json();
    int calls = c.value("calls").toInt(1);
    Move m{};
    for (int i = 0; i < calls; i++) {
        double secs = 0;
        m = cpu.call(board, legal, &secs);
        printf("  call %d: [%d, %d, %d] in %.2f s\n", i + 1, m.from, m.count, m.to, secs);
    }
    auto as_move = [&](const QJsonValue &v) {
        QJsonArray a = v.toArray();
        if (a.at(0).isArray()) return Move{index(a.at(0)), a.at(1).toInt(), index(a.at(2))};
        if (a.at(0).toInt() == -1) return Move{-1, 1, index(a.at(2))};
        return Move{a.at(0).toInt(), a.at(1).toInt(), a.at(2).toInt()};
    };
    if (c.contains("expect")) {
        Move want = as_move(c.value("expect"));
        if (!(m == want))
            fail("expected [" + std::to_string(want.from) + ", " + std::to_string(want.count) + ", " +
                 std::to_string(want.to) + "]");
    }
    if (c.contains("expect_not")) {
        Move not_this = as_move(c.value("expect_not"));
        if (m == not_this) fail("played the move the case forbids");
        for (const auto &l : legal)
            if (l == not_this) fail("the referee lists the move the case says the app forbids");
    }
    for (auto want : c.value("expect_log").toArray()) {
        int found = 0;
        for (const auto &line : cpu.game.logged) found += line.contains(want.toString());
        if (found != 1)
            fail("the log should say '" + want.toString().toStdString() + "' once, said it " +
                 std::to_string(found) + " times");
    }
    return 0;
}

// The Mixtour part of `bench` through the script's engine in QJSEngine:
// prints its lines and `<nodes> nodes <nps> nps`.
static int run_bench(const QString &script) {
    State s = read_in_text("20,15\n0,0,0,0,0\n0,0,0,0,0\n0,0,0,0,0\n0,0,0,0,0\n0,0,0,0,0\n", 1, 2);
    Player cpu(script, &s);
    QElapsedTimer t;
    t.start();
    QJSValue r = cpu.engine.evaluate(
        "(function () { var e = stackfishModule(); var n = e.sc_bench(0); var at = e.sc_out();"
        " var h = new Uint8Array(e.memory.buffer); var s = '';"
        " for (var i = 0; i < n; i++) s += String.fromCharCode(h[at + i]); return s; })()");
    double secs = t.nsecsElapsed() / 1e9;
    if (r.isError()) fail("bench threw: " + r.toString().toStdString());
    QStringList lines = r.toString().trimmed().split('\n');
    long nodes = lines.takeLast().split(' ').value(0).toLong();
    for (const auto &l : lines) printf("%s\n", qPrintable(l));
    printf("%ld nodes %.0f nps\n", nodes, nodes / secs);
    return 0;
}

int main(int argc, char **argv) {
    QCoreApplication app(argc, argv);
    qInstallMessageHandler(on_message);
    QStringList args = app.arguments();
    if (args.size() < 3) fail("usage: host SCRIPT games BOARD.in TOWERS PLAYERS GAMES SEED | host SCRIPT call CASE.json");
    int rc = 1;
    if (args[2] == "games" && args.size() == 8) {
        rc = run_games(args[1], args[3], args[4].toInt(), args[5].toInt(), args[6].toInt(), args[7].toUInt());
    } else if (args[2] == "bench" && args.size() == 3) {
        rc = run_bench(args[1]);
    } else if (args[2] == "call" && args.size() == 4) {
        rc = run_case(args[1], args[3]);
    } else {
        fail("usage: host SCRIPT games BOARD.in TOWERS PLAYERS GAMES SEED | host SCRIPT call CASE.json");
    }
    if (used_before_declaration)
        fail(std::to_string(used_before_declaration) + " QJSEngine warnings of a variable used before its declaration");
    fflush(stdout);
    return rc;
}

#include "host.moc"
