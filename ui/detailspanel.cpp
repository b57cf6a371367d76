#include "detailspanel.h"

#include "eventtext.h"

namespace syncline::ui {

DetailsPanel::DetailsPanel(QWidget *parent) : QTextBrowser(parent)
{
    setOpenLinks(false);
    setOpenExternalLinks(false);
    setHtml(eventDetailsHtml(TimelineScene(std::make_shared<Timeline>()), {}));
    connect(this, &QTextBrowser::anchorClicked, this, [this](const QUrl &url) {
        // "event:<model>:<index>"
        const QStringList parts = url.toString().split(QLatin1Char(':'));
        if (parts.size() == 3 && parts[0] == QLatin1String("event"))
            emit eventActivated({parts[1].toInt(), parts[2].toInt()});
    });
}

void DetailsPanel::showEvent(const TimelineScene *scene, const EventRef &ref)
{
    if (!scene) {
        clear();
        return;
    }
    setHtml(eventDetailsHtml(*scene, ref));
}

} // namespace syncline::ui
